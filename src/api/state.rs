use crate::config::Settings;
use crate::live::LiveHub;
use crate::rounds::SeedVault;
use crate::store::Database;
use crate::wagers::Committer;

/// What every handler may reach: the database, the resolved settings, the
/// server-seed vault, the live-event hub and the wager committer.
#[derive(Clone)]
pub struct AppState {
    pub db: Database,
    /// A read replica for reports, when one is configured (api::replica).
    pub replica: Option<super::replica::Replica>,
    pub settings: Settings,
    pub vault: SeedVault,
    pub live: LiveHub,
    /// This instance's group committer for bets, deposits and withdrawals.
    pub committer: Committer,
    /// Bounds concurrent password checks (argon2 is memory- and CPU-hard),
    /// so a flood of logins queues here and degrades only logins.
    pub password_checks: std::sync::Arc<tokio::sync::Semaphore>,
    /// Lobo hints: solved once per position, limited per player and at once.
    pub hints: std::sync::Arc<crate::rounds::lobo_hints::HintDesk>,
}

impl AppState {
    /// Runs blocking database work on actix's blocking pool, answering 503
    /// once it has taken longer than `db_timeout_ms`: a database that stops
    /// answering holds that thread, not the request.
    pub async fn blocking<T, F>(&self, f: F) -> Result<T, super::error::ApiError>
    where
        F: FnOnce(&AppState) -> Result<T, super::error::ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let state = self.clone();
        self.within_db_timeout(actix_web::web::block(move || f(&state)))
            .await??
    }

    /// `work`, or 503 `database_timeout` when it is not done within `db_timeout_ms`.
    pub async fn within_db_timeout<T>(
        &self,
        work: impl std::future::Future<Output = T>,
    ) -> Result<T, super::error::ApiError> {
        let timeout_ms = self.settings.db_timeout_ms;
        tokio::time::timeout(std::time::Duration::from_millis(timeout_ms), work)
            .await
            .map_err(|_| super::error::ApiError::database_timeout(timeout_ms))
    }
}
