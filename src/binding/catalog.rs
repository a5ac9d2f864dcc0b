//! The tool catalog as typed objects (`toolCatalog()`, typed in binding.d.ts): what the
//! JavaScript layer needs of each tool of the registry, read once per process.

use napi_derive::napi;

use agent_tools_core::registry;

/// One tool of the native registry, in catalog order: the 13 built-ins of `ToolCatalog`, then
/// the opt-in tools (`optIn`, with their `definition`).
#[napi(object, object_from_js = false)]
pub struct CatalogEntry {
    pub name: String,
    pub is_write_op: bool,
    /// `ToolCatalog[name].metadata.description`.
    pub description: String,
    /// A session tool (the todo tools): its state is the caller's `context.todo`.
    pub session: bool,
    /// How the tool loop schedules a call: reads in parallel, the others one at a time.
    #[napi(ts_type = "'read' | 'write' | 'exec' | 'state'")]
    pub effect: String,
    /// `[previewKey, argumentName]` pairs a review shows.
    #[napi(ts_type = "Array<[string, string]>")]
    pub review_fields: Vec<Vec<String>>,
    /// An opt-in tool (`createAgentToolkit(context, { extraTools })`), not in `ToolCatalog`.
    pub opt_in: bool,
    /// An opt-in tool's definition (the shape of `TOOL_DEFINITIONS`' entries).
    #[napi(ts_type = "unknown")]
    pub definition: Option<serde_json::Value>,
    /// The JSON Schema generated from the tool's input type (schemars): what its definition's
    /// `parameters` must be.
    #[napi(ts_type = "unknown")]
    pub parameters: serde_json::Value,
}

/// Every tool of the native registry (the one list), in catalog order.
#[napi(catch_unwind)]
pub fn tool_catalog() -> Vec<CatalogEntry> {
    registry::CATALOG
        .iter()
        .map(|t| CatalogEntry {
            name: t.name.to_owned(),
            is_write_op: t.effect.is_write_op(),
            description: t.description.to_owned(),
            session: matches!(t.handler, registry::Handler::Session(_)),
            effect: t.effect.as_str().to_owned(),
            review_fields: t
                .review_fields
                .iter()
                .map(|&(key, argument)| vec![key.to_owned(), argument.to_owned()])
                .collect(),
            opt_in: t.opt_in,
            definition: t
                .opt_in
                .then(|| registry::opt_in_definition(t.name).unwrap_or_default()),
            parameters: (t.input.schema)(),
        })
        .collect()
}
