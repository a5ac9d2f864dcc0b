//! ast_grep_search (contract: ast_grep_search.md): types. The handler is not in this build yet
//! (see `pending`). Matches are ast-grep's JSON objects, open to extra keys.

use ts_rs::TS;

#[derive(TS)]
#[allow(dead_code)]
pub struct AstGrepSearchInput {
    pub language: String,
    #[ts(type = "Record<string, unknown>")]
    pub rule: (),
    #[ts(optional)]
    pub root_path: Option<String>,
    #[ts(optional)]
    pub include: Option<Vec<String>>,
    #[ts(optional)]
    pub exclude: Option<Vec<String>>,
    #[ts(optional)]
    pub max_results: Option<f64>,
    #[ts(optional)]
    pub timeout_ms: Option<f64>,
}

#[derive(TS)]
#[allow(dead_code)]
#[ts(type = "{ line: number; column: number; offset?: number; [key: string]: unknown }")]
pub struct AstGrepJsonPosition;

#[derive(TS)]
#[allow(dead_code)]
#[ts(type = "{ start: AstGrepJsonPosition; end: AstGrepJsonPosition; [key: string]: unknown }")]
pub struct AstGrepJsonRange;

#[derive(TS)]
#[allow(dead_code)]
#[ts(
    type = "{ text: string; file: string; range: AstGrepJsonRange; lines?: string; language?: string; metaVariables?: Record<string, unknown>; ruleId?: string; severity?: string; message?: string; note?: string | null; [key: string]: unknown }"
)]
pub struct AstGrepJsonMatch;

#[derive(TS)]
#[allow(dead_code)]
pub struct AstGrepSearchQuery {
    pub language: String,
    #[ts(type = "Record<string, unknown>")]
    pub rule: (),
}

#[derive(TS)]
#[allow(dead_code)]
pub struct AstGrepSearchOutput {
    pub query: AstGrepSearchQuery,
    pub root_path: String,
    pub took_ms: u64,
    pub truncated: bool,
    pub items: Vec<AstGrepJsonMatch>,
    pub warnings: Vec<String>,
}
