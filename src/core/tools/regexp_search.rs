//! regexp_search (contract: regexp_search.md): types. The handler is not in this build yet
//! (see `pending`).

use serde::Serialize;
use ts_rs::TS;

#[derive(TS)]
#[allow(dead_code)]
pub struct RegexpSearchInput {
    pub pattern: String,
    #[ts(optional)]
    pub flags: Option<String>,
    #[ts(optional)]
    pub root_path: Option<String>,
    #[ts(optional)]
    pub include: Option<Vec<String>>,
    #[ts(optional)]
    pub exclude: Option<Vec<String>>,
    #[ts(optional)]
    pub max_results: Option<f64>,
    #[ts(optional, type = "1048576")]
    pub max_file_size_bytes: Option<f64>,
    #[ts(optional)]
    pub timeout_ms: Option<f64>,
}

#[derive(Serialize, TS, Debug)]
pub struct RegexpSearchItem {
    pub path: String,
    pub line: u64,
    pub column: u64,
    #[serde(rename = "match")]
    #[ts(rename = "match")]
    pub matched: String,
    pub line_text: String,
}

#[derive(Serialize, TS, Debug)]
pub struct RegexpSearchQuery {
    pub pattern: String,
    pub flags: String,
}

#[derive(Serialize, TS, Debug)]
pub struct RegexpSearchOutput {
    pub query: RegexpSearchQuery,
    pub root_path: String,
    pub took_ms: u64,
    pub truncated: bool,
    pub scanned_files: u64,
    pub items: Vec<RegexpSearchItem>,
    pub warnings: Vec<String>,
}
