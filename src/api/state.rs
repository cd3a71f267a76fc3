use crate::config::Settings;
use crate::live::LiveHub;
use crate::rounds::SeedVault;
use crate::store::Database;

/// What every handler may reach: the database, the resolved settings, the
/// server-seed vault and the live-event hub.
#[derive(Clone)]
pub struct AppState {
    pub db: Database,
    pub settings: Settings,
    pub vault: SeedVault,
    pub live: LiveHub,
}

impl AppState {
    /// Runs blocking database work on actix's blocking pool.
    pub async fn blocking<T, F>(&self, f: F) -> Result<T, super::error::ApiError>
    where
        F: FnOnce(&AppState) -> Result<T, super::error::ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let state = self.clone();
        actix_web::web::block(move || f(&state)).await?
    }
}
