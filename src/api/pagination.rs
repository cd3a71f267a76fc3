use super::error::ApiError;

/// Most rows any list endpoint returns at once.
pub const MAX_PAGE_ROWS: i64 = 500;
pub const DEFAULT_PAGE_ROWS: i64 = 50;

#[derive(Clone, Copy, Debug)]
pub struct Page {
    pub limit: i64,
    pub offset: i64,
}

impl Page {
    pub fn new(limit: Option<i64>, offset: Option<i64>) -> Result<Page, ApiError> {
        let limit = limit.unwrap_or(DEFAULT_PAGE_ROWS);
        let offset = offset.unwrap_or(0);
        if !(1..=MAX_PAGE_ROWS).contains(&limit) {
            return Err(ApiError::bad_request(
                "invalid_limit",
                format!("limit must be 1 to {MAX_PAGE_ROWS}"),
            ));
        }
        if offset < 0 {
            return Err(ApiError::bad_request("invalid_offset", "offset must not be negative"));
        }
        Ok(Page { limit, offset })
    }
}
