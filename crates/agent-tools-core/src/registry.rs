//! The one list of tools. Dispatch, the catalog metadata, the invoke argument mapping and the
//! TypeScript name maps all come from `CATALOG`; nothing else lists tools.

use super::context::ToolContext;
use super::error::ErrorClass;
use super::tools::input::{parameters_schema, property_names, ArgShape, ToolInput};
pub use super::tools::input::{BoundedHandler, Effect, Handler};
use super::tools::todo;
use super::tools::{
    apply_patch, apply_patches, ast_grep_search, checkpoint, edit_file, exec_command, find_files,
    git_status_summary, process, read_file, regexp_search, tree, write_file,
};
#[cfg(feature = "typegen")]
use super::tstype::{ts, TsType};

/// How `invoke(name, args)` turns `args` into the handler's positional arguments (docs/compat.md, "Order of checks in invoke"):
/// the input type's `ArgShape` with the names of its fields (`ToolSpec::invoke_args`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvokeArgs {
    /// `[args[path], args[second]]`, path sandboxed.
    PathAndField(&'static str, &'static str),
    /// `[args[path], { k: args[k] for k in keys }]`, path sandboxed.
    PathAndOptions(&'static str, &'static [&'static str]),
    /// `[args[path]]` (`undefined` when absent), path sandboxed.
    OptionalPath(&'static str),
    /// `[args]`, with `field` sandboxed in a shallow copy when it is a string.
    Object(Option<&'static str>),
}

pub struct ToolSpec {
    pub name: &'static str,
    pub effect: Effect,
    /// What a reviewer is shown of a call: `(preview key, argument name)` pairs, e.g. apply_patch's
    /// `("path", "filePath")` (the input's `#[arg(review)]` fields). Empty for tools that are
    /// not reviewed.
    pub review_fields: &'static [(&'static str, &'static str)],
    /// True for tools that start processes: the binding then passes the host's `process.env`
    /// (`ToolContext::process_env`) for the child's environment and `PATH` lookups.
    pub spawns_processes: bool,
    /// `ToolCatalog[name].metadata.description` (may differ from the definition's, docs/compat.md, "apply_patch has two descriptions").
    pub description: &'static str,
    /// The JavaScript class of this tool's errors.
    pub error_class: ErrorClass,
    /// The tool's input type (`tools::input`): its schema, shape and TypeScript type.
    pub input: InputSpec,
    pub handler: Handler,
    /// An opt-in tool (`createAgentToolkit(context, { extraTools: [name] })`): not part of the
    /// drop-in contract, so not in `ToolCatalog`, `TOOL_DEFINITIONS` or the 13 tools'
    /// typings; a toolkit that enables it serves it through the same checks as the built-ins.
    pub opt_in: bool,
    /// The TypeScript type of `ToolResultByName[name]`.
    #[cfg(feature = "typegen")]
    pub ts_result: TsType,
}

/// A tool's input type, seen by the catalog: `input::<T>()`.
#[derive(Clone, Copy)]
pub struct InputSpec {
    pub shape: ArgShape,
    /// The definition's `parameters`, generated from the type.
    pub schema: fn() -> serde_json::Value,
    /// The TypeScript type of `ToolArgsByName[name]`.
    #[cfg(feature = "typegen")]
    pub ts: TsType,
    /// The TypeScript type of the `options` argument (`ArgShape::PathAndOptions`).
    #[cfg(feature = "typegen")]
    pub ts_options: Option<TsType>,
}

/// The catalog entry of a tool, from its input type.
pub const fn spec<T: ToolInput>() -> ToolSpec {
    ToolSpec {
        name: T::NAME,
        effect: T::EFFECT,
        review_fields: T::REVIEW,
        spawns_processes: T::SPAWNS_PROCESSES,
        description: T::DESCRIPTION,
        error_class: T::ERROR_CLASS,
        input: input::<T>(),
        handler: T::HANDLER,
        opt_in: T::OPT_IN,
        #[cfg(feature = "typegen")]
        ts_result: T::TS_RESULT,
    }
}

pub const fn input<T: ToolInput>() -> InputSpec {
    InputSpec {
        shape: T::SHAPE,
        schema: parameters_schema::<T>,
        #[cfg(feature = "typegen")]
        ts: ts::<T>(),
        #[cfg(feature = "typegen")]
        ts_options: T::TS_OPTIONS,
    }
}

impl ToolSpec {
    /// The `invoke` argument mapping: the input's shape with its field names, read from the
    /// schemas once per process (the first call generates the catalog's schemas: about 2 ms in
    /// a debug build; then a lookup). Every `ToolSpec` is a `CATALOG` entry; one that were not would get
    /// its mapping computed afresh.
    pub fn invoke_args(&self) -> InvokeArgs {
        static MAPPINGS: std::sync::OnceLock<Vec<InvokeArgs>> = std::sync::OnceLock::new();
        let mappings =
            MAPPINGS.get_or_init(|| CATALOG.iter().map(|t| mapping_of(&t.input)).collect());
        CATALOG
            .iter()
            .position(|t| std::ptr::eq(t, self))
            .map_or_else(|| mapping_of(&self.input), |i| mappings[i])
    }
}

/// `InvokeArgs` of an input type. The names are leaked once per tool to be `&'static`, as the
/// mapping is used on every call.
fn mapping_of(input: &InputSpec) -> InvokeArgs {
    let names: &'static [&'static str] = property_names(&(input.schema)())
        .into_iter()
        .map(|n| &*Box::leak(n.into_boxed_str()))
        .collect::<Vec<_>>()
        .leak();
    let first = names.first().copied().unwrap_or_default();
    match input.shape {
        ArgShape::PathAndField => {
            InvokeArgs::PathAndField(first, names.get(1).copied().unwrap_or_default())
        }
        ArgShape::PathAndOptions => InvokeArgs::PathAndOptions(first, &names[names.len().min(1)..]),
        ArgShape::OptionalPath => InvokeArgs::OptionalPath(first),
        ArgShape::Object(field) => InvokeArgs::Object(field),
    }
}

/// Every tool: the 13 built-ins in `ToolCatalog` / `toolkit.tools` key order, then the opt-in
/// tools (`opt_in: true`) in the order `getAllowedTools()` lists them when enabled. Each entry
/// comes from its input type's `#[tool_input]`.
pub static CATALOG: [ToolSpec; 23] = [
    spec::<apply_patch::ApplyPatchInput>(),
    spec::<exec_command::ExecCommandInput>(),
    spec::<write_file::WriteFileInput>(),
    spec::<tree::TreeInput>(),
    spec::<read_file::ReadFileInput>(),
    spec::<regexp_search::RegexpSearchInput>(),
    spec::<ast_grep_search::AstGrepSearchInput>(),
    spec::<git_status_summary::GitStatusSummaryInput>(),
    spec::<todo::TaskCreateManyInput>(),
    spec::<todo::TaskListInput>(),
    spec::<todo::TaskUpdateInput>(),
    spec::<todo::TaskUpdateStatusInput>(),
    spec::<todo::TaskValidateCompletionInput>(),
    spec::<edit_file::EditFileInput>(),
    spec::<find_files::FindFilesInput>(),
    spec::<apply_patches::ApplyPatchesInput>(),
    spec::<process::ProcessStartInput>(),
    spec::<process::ProcessReadInput>(),
    spec::<process::ProcessWriteInput>(),
    spec::<process::ProcessListInput>(),
    spec::<process::ProcessKillInput>(),
    spec::<checkpoint::CheckpointListInput>(),
    spec::<checkpoint::CheckpointRestoreInput>(),
];

/// `TOOL_DEFINITIONS` as a JSON array in declaration order (the order `getAllowedTools()` uses).
/// Kept as data, byte-identical to upstream's blocks.
pub const DEFINITIONS_JSON: &str = include_str!("definitions.json");

/// The opt-in tools' definitions (the shape of `TOOL_DEFINITIONS`' entries), in catalog order.
pub const OPT_IN_DEFINITIONS_JSON: &str = include_str!("opt_in_definitions.json");

/// A built-in tool (one of the 13) by name; opt-in tools are not found here.
pub fn find(name: &str) -> Option<&'static ToolSpec> {
    CATALOG.iter().find(|t| t.name == name && !t.opt_in)
}

/// An opt-in tool by name.
pub fn find_opt_in(name: &str) -> Option<&'static ToolSpec> {
    CATALOG.iter().find(|t| t.name == name && t.opt_in)
}

/// A built-in tool, or also an opt-in one when `opt_in` (the call is of an enabled opt-in tool).
pub fn find_enabled(name: &str, opt_in: bool) -> Option<&'static ToolSpec> {
    CATALOG
        .iter()
        .find(|t| t.name == name && (!t.opt_in || opt_in))
}

/// The 13 built-in tools, in catalog order.
pub fn built_ins() -> impl Iterator<Item = &'static ToolSpec> {
    CATALOG.iter().filter(|t| !t.opt_in)
}

/// The opt-in tools, in catalog order.
pub fn opt_ins() -> impl Iterator<Item = &'static ToolSpec> {
    CATALOG.iter().filter(|t| t.opt_in)
}

/// The definition of the opt-in tool `name` (JSON), from `OPT_IN_DEFINITIONS_JSON`.
pub fn opt_in_definition(name: &str) -> Option<serde_json::Value> {
    let defs: serde_json::Value = serde_json::from_str(OPT_IN_DEFINITIONS_JSON).ok()?;
    defs.as_array()?
        .iter()
        .find(|d| d["function"]["name"] == name)
        .cloned()
}

/// Tool names in definition (declaration) order.
pub fn definition_order() -> Vec<String> {
    let defs: serde_json::Value =
        serde_json::from_str(DEFINITIONS_JSON).expect("definitions.json is valid JSON");
    defs.as_array()
        .expect("definitions.json is an array")
        .iter()
        .map(|d| {
            d["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// The names `getAllowedTools()` returns for this context, in declaration order.
pub fn allowed_tool_names(ctx: &ToolContext) -> Vec<String> {
    definition_order()
        .into_iter()
        .filter(|name| super::policy::is_allowed(ctx, name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_cover_the_catalog() {
        let mut defined = definition_order();
        assert_eq!(defined.len(), 13);
        assert_eq!(defined[0], "git_status_summary");
        assert_eq!(defined[12], "ast_grep_search");
        defined.sort();
        let mut catalog: Vec<String> = built_ins().map(|t| t.name.to_string()).collect();
        catalog.sort();
        assert_eq!(defined, catalog);
    }

    #[test]
    fn only_write_tools_are_write_ops() {
        let writers: Vec<&str> = CATALOG
            .iter()
            .filter(|t| t.effect.is_write_op())
            .map(|t| t.name)
            .collect();
        assert_eq!(
            writers,
            [
                "apply_patch",
                "write_file",
                "edit_file",
                "apply_patches",
                "checkpoint_restore"
            ]
        );
    }

    #[test]
    fn effects_and_review_fields_agree() {
        let mut definitions: serde_json::Value = serde_json::from_str(DEFINITIONS_JSON).unwrap();
        let opt_in: serde_json::Value = serde_json::from_str(OPT_IN_DEFINITIONS_JSON).unwrap();
        definitions
            .as_array_mut()
            .unwrap()
            .extend(opt_in.as_array().unwrap().iter().cloned());
        for t in &CATALOG {
            let reviewed = matches!(t.effect, Effect::Write | Effect::Exec);
            assert_eq!(reviewed, !t.review_fields.is_empty(), "{}", t.name);
            let definition = definitions
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["function"]["name"] == t.name)
                .unwrap();
            let properties = &definition["function"]["parameters"]["properties"];
            for (_, argument) in t.review_fields {
                assert!(properties.get(argument).is_some(), "{}: {argument}", t.name);
            }
        }
        let exec: Vec<&str> = CATALOG
            .iter()
            .filter(|t| t.effect == Effect::Exec)
            .map(|t| t.name)
            .collect();
        assert_eq!(
            exec,
            [
                "exec_command",
                "process_start",
                "process_write",
                "process_kill"
            ]
        );
    }

    /// A definitions file with each tool's `parameters` generated from its input type, in the
    /// file's format (two-space indented JSON, a final newline).
    fn with_generated_parameters(json: &str) -> String {
        let mut defs: serde_json::Value = serde_json::from_str(json).unwrap();
        for def in defs.as_array_mut().unwrap() {
            let name = def["function"]["name"].as_str().unwrap().to_string();
            let tool = find_enabled(&name, true).unwrap_or_else(|| panic!("{name} is a tool"));
            def["function"]["parameters"] = (tool.input.schema)();
        }
        serde_json::to_string_pretty(&defs).unwrap() + "\n"
    }

    /// The schema of each input type is its definition's `parameters`: a field added to (or
    /// changed in) a type and not in the definition fails here.
    ///
    /// definitions.json is upstream's published data, never rewritten: its values and the order
    /// of each tool's properties must be generated, and 11 of the 13 are generated byte for
    /// byte; in the other two, upstream's order of keywords inside a property's schema (which
    /// carries no meaning) is not the generator's. opt_in_definitions.json is ours: pinned byte
    /// for byte, regenerated with `UPDATE_TYPES=1` (as types/tools.d.ts is).
    #[test]
    fn input_types_generate_the_published_parameters() {
        let builtins: serde_json::Value = serde_json::from_str(DEFINITIONS_JSON).unwrap();
        let builtins = builtins.as_array().unwrap();
        assert_eq!(builtins.len(), built_ins().count());
        let mut keyword_order_differs = Vec::new();
        for published in builtins {
            let name = published["function"]["name"].as_str().unwrap();
            let published = &published["function"]["parameters"];
            let generated = (find(name).unwrap().input.schema)();
            assert_eq!(
                &generated,
                published,
                "{name}: generated\n{}",
                serde_json::to_string_pretty(&generated).unwrap()
            );
            assert_eq!(
                property_names(&generated),
                property_names(published),
                "{name}"
            );
            let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap();
            if pretty(&generated) != pretty(published) {
                keyword_order_differs.push(name);
            }
        }
        // the two places where upstream's keyword order is not `tools::input`'s: `tasks` has
        // its description before its items, `max_file_size_bytes` its default before its enum
        assert_eq!(keyword_order_differs, ["task_create_many", "regexp_search"]);
        let fresh = with_generated_parameters(OPT_IN_DEFINITIONS_JSON);
        if fresh != OPT_IN_DEFINITIONS_JSON {
            if std::env::var_os("UPDATE_TYPES").is_some() {
                let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/opt_in_definitions.json");
                std::fs::write(path, &fresh).unwrap();
            } else {
                assert_eq!(
                    fresh, OPT_IN_DEFINITIONS_JSON,
                    "opt_in_definitions.json is stale: run `UPDATE_TYPES=1 cargo test -p agent-tools-core` and commit it"
                );
            }
        }
    }

    /// The `invoke` mapping comes from the input types.
    #[test]
    fn invoke_args_come_from_the_input_types() {
        let of = |name| find_enabled(name, true).unwrap().invoke_args();
        assert_eq!(
            of("read_file"),
            InvokeArgs::PathAndOptions("path", &["start_line", "max_lines"])
        );
        assert_eq!(
            of("tree"),
            InvokeArgs::PathAndOptions(
                "path",
                &[
                    "entry_kind",
                    "max_depth",
                    "max_entries",
                    "include_hidden",
                    "exclude"
                ]
            )
        );
        assert_eq!(
            of("edit_file"),
            InvokeArgs::PathAndOptions(
                "path",
                &["old_string", "new_string", "replace_all", "dry_run"]
            )
        );
        assert_eq!(
            of("apply_patch"),
            InvokeArgs::PathAndField("filePath", "patch")
        );
        assert_eq!(
            of("write_file"),
            InvokeArgs::PathAndField("path", "content")
        );
        assert_eq!(of("git_status_summary"), InvokeArgs::OptionalPath("cwd"));
        assert_eq!(of("exec_command"), InvokeArgs::Object(Some("cwd")));
        assert_eq!(of("regexp_search"), InvokeArgs::Object(Some("root_path")));
        assert_eq!(of("task_list"), InvokeArgs::Object(None));
        assert_eq!(of("checkpoint_list"), InvokeArgs::Object(None));
        assert_eq!(of("checkpoint_restore"), InvokeArgs::Object(None));
        for t in &CATALOG {
            let properties = property_names(&(t.input.schema)());
            match (t.input.shape, t.invoke_args()) {
                (ArgShape::PathAndField, InvokeArgs::PathAndField(a, b)) => {
                    assert_eq!(properties, [a, b], "{}", t.name)
                }
                (ArgShape::OptionalPath, InvokeArgs::OptionalPath(a)) => {
                    assert_eq!(properties, [a], "{}", t.name)
                }
                (ArgShape::PathAndOptions, InvokeArgs::PathAndOptions(path, keys)) => {
                    assert_eq!(properties[0], path, "{}", t.name);
                    assert_eq!(properties[1..], *keys, "{}", t.name);
                }
                (ArgShape::Object(field), InvokeArgs::Object(mapped)) => {
                    assert_eq!(field, mapped);
                    if let Some(field) = field {
                        assert!(properties.iter().any(|p| p == field), "{}", t.name);
                    }
                }
                (shape, mapping) => panic!("{}: {shape:?} gave {mapping:?}", t.name),
            }
        }
    }

    #[test]
    fn opt_in_tools_have_definitions_and_stay_apart() {
        let names: Vec<&str> = opt_ins().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "edit_file",
                "find_files",
                "apply_patches",
                "process_start",
                "process_read",
                "process_write",
                "process_list",
                "process_kill",
                "checkpoint_list",
                "checkpoint_restore"
            ]
        );
        assert_eq!(built_ins().count(), 13);
        let defs: serde_json::Value = serde_json::from_str(OPT_IN_DEFINITIONS_JSON).unwrap();
        let defined: Vec<&str> = defs
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(defined, names);
        for name in names {
            assert!(find(name).is_none(), "{name} is not a built-in");
            assert!(find_opt_in(name).is_some());
            assert!(find_enabled(name, true).is_some());
            assert!(find_enabled(name, false).is_none());
            assert!(!definition_order().iter().any(|n| n == name));
        }
    }
}
