use crate::config::Settings;
use crate::store::Database;

/// What every handler may reach: the database and the resolved settings.
#[derive(Clone)]
pub struct AppState {
    pub db: Database,
    pub settings: Settings,
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
