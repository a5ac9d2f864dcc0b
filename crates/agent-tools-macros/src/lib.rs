//! `#[tool_input]`: a tool's input written once. On a struct whose fields carry `#[arg(...)]`, it
//! derives the parse of the handler's arguments (`InputFields`, and with tool attributes
//! `ToolInput`), adds the schemars and ts-rs attributes that say which fields are optional and
//! what their defaults are, and gives the catalog the tool's metadata, its review fields among
//! them. The traits and the checks it calls live in agent-tools-core's `tools::input` and
//! `tools::args`; docs/adding-a-tool.md shows a tool written with it.
//!
//! Struct attributes, all of a tool's input (`#[tool_input]` without any is a flattened options
//! struct, which only gets `InputFields`):
//! - `name = "…"`, `description = "…"`, `effect = Read|Write|Exec|State`, `class = ERROR_CLASS`,
//!   `output = Type`, `handler = Worker(run)|Bounded(run)|Session(op)`, `opt_in`,
//!   `spawns_processes`: the catalog entry;
//! - `shape = PathAndField|PathAndOptions|OptionalPath|Object` and, for `Object`, `sandboxed = field`;
//! - `object = any|plain|plain_or_absent|engine`: what an `Object` input must be (default `any`);
//! - `bare`: errors without the `CODE: ` prefix;
//! - `before = f` (`f(&ToolContext) -> Result<(), ToolError>`), `then = f` (`f(&Self) -> …`): checks
//!   before the fields and after them.
//!
//! Field attributes (`#[arg(...)]`, every field has one):
//! - `check = f`: `f(Field<T>) -> Result<T, ToolError>` reads the field's value (`Option<T>`
//!   fields are optional in the schema and the TypeScript type);
//! - `default = EXPR`: optional, with this default (in the schema too; `Field::default`);
//!   `optional`: optional without one; `schema = T`: the argument's type in the schema and in
//!   TypeScript when it is not the field's; `ts = "…"`: a literal TypeScript type;
//! - `from = EXPR`: not an argument but computed (`Result<T, ToolError>`) from the fields before it;
//! - `flatten`: the fields of an options struct (`InputFields`), `object = plain` when anything
//!   but an object is refused as `<key> must be an object`;
//! - `after = field`: checked after that field rather than in declaration order;
//! - `review` / `review = "preview key"`: shown to a reviewer.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::{parse_macro_input, Attribute, Expr, Fields, Ident, ItemStruct, LitStr, Type};

#[derive(Default)]
struct StructArgs {
    name: Option<LitStr>,
    description: Option<LitStr>,
    effect: Option<Ident>,
    class: Option<Expr>,
    output: Option<Type>,
    handler: Option<Expr>,
    opt_in: bool,
    spawns_processes: bool,
    shape: Option<Ident>,
    sandboxed: Option<Ident>,
    object: Option<Ident>,
    bare: bool,
    before: Option<Expr>,
    then: Option<Expr>,
}

#[derive(Default)]
struct FieldArgs {
    check: Option<Expr>,
    default: Option<Expr>,
    from: Option<Expr>,
    flatten: bool,
    plain_object: bool,
    after: Option<Ident>,
    review: Option<Option<LitStr>>,
    optional: bool,
    schema: Option<Type>,
    ts: Option<LitStr>,
}

struct FieldInfo {
    ident: Ident,
    ty: Type,
    key: String,
    args: FieldArgs,
}

#[proc_macro_attribute]
pub fn tool_input(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut item = parse_macro_input!(item as ItemStruct);
    let mut args = StructArgs::default();
    let parser = syn::meta::parser(|meta| {
        let p = &meta.path;
        if p.is_ident("name") {
            args.name = Some(meta.value()?.parse()?);
        } else if p.is_ident("description") {
            args.description = Some(meta.value()?.parse()?);
        } else if p.is_ident("effect") {
            args.effect = Some(meta.value()?.parse()?);
        } else if p.is_ident("class") {
            args.class = Some(meta.value()?.parse()?);
        } else if p.is_ident("output") {
            args.output = Some(meta.value()?.parse()?);
        } else if p.is_ident("handler") {
            args.handler = Some(meta.value()?.parse()?);
        } else if p.is_ident("opt_in") {
            args.opt_in = true;
        } else if p.is_ident("spawns_processes") {
            args.spawns_processes = true;
        } else if p.is_ident("shape") {
            args.shape = Some(meta.value()?.parse()?);
        } else if p.is_ident("sandboxed") {
            args.sandboxed = Some(meta.value()?.parse()?);
        } else if p.is_ident("object") {
            args.object = Some(meta.value()?.parse()?);
        } else if p.is_ident("bare") {
            args.bare = true;
        } else if p.is_ident("before") {
            args.before = Some(meta.value()?.parse()?);
        } else if p.is_ident("then") {
            args.then = Some(meta.value()?.parse()?);
        } else {
            return Err(meta.error("unknown tool_input attribute"));
        }
        Ok(())
    });
    parse_macro_input!(attr with parser);
    match expand(&mut item, args) {
        Ok(extra) => quote!(#item #extra).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(item: &mut ItemStruct, args: StructArgs) -> syn::Result<Tokens> {
    let Fields::Named(named) = &mut item.fields else {
        if matches!(item.fields, Fields::Unit) {
            return Err(syn::Error::new_spanned(&item.ident, "use `struct X {}`"));
        }
        return Err(syn::Error::new_spanned(
            &item.ident,
            "a tool input has named fields",
        ));
    };
    let mut fields = Vec::new();
    for field in named.named.iter_mut() {
        let ident = field.ident.clone().expect("named field");
        let mut field_args = None;
        let mut kept = Vec::new();
        for attr in field.attrs.drain(..) {
            if attr.path().is_ident("arg") {
                field_args = Some(parse_field_args(&attr)?);
            } else {
                kept.push(attr);
            }
        }
        let Some(field_args) = field_args else {
            return Err(syn::Error::new_spanned(
                &ident,
                "every field needs #[arg(...)]",
            ));
        };
        if field_args.check.is_none() && field_args.from.is_none() && !field_args.flatten {
            return Err(syn::Error::new_spanned(
                &ident,
                "#[arg] needs one of check, from or flatten",
            ));
        }
        let key = serde_rename(&kept)?.unwrap_or_else(|| ident.to_string());
        let ty = field.ty.clone();
        kept.extend(generated_attrs(&ty, &field_args));
        field.attrs = kept;
        fields.push(FieldInfo {
            ident,
            ty,
            key,
            args: field_args,
        });
    }

    let name = &item.ident;
    let keys: Vec<&str> = fields
        .iter()
        .filter(|f| f.args.from.is_none() && !f.args.flatten)
        .map(|f| f.key.as_str())
        .collect();
    let order = check_order(&fields)?;
    let object_parse = field_reads(&fields, &order, |_, f| {
        let key = &f.key;
        quote!(object.get(#key))
    });
    let build: Vec<&Ident> = fields.iter().map(|f| &f.ident).collect();
    let review: Vec<Tokens> = fields
        .iter()
        .filter_map(|f| {
            let argument = &f.key;
            if f.args.flatten {
                let ty = &f.ty;
                return Some(quote!(<#ty as crate::tools::input::InputFields>::REVIEW));
            }
            let preview = match f.args.review.as_ref()? {
                Some(lit) => lit.value(),
                None => argument.clone(),
            };
            Some(quote!(&[(#preview, #argument)]))
        })
        .collect();

    let fields_impl = quote! {
        impl crate::tools::input::InputFields for #name {
            const KEYS: &'static [&'static str] = &[#(#keys),*];
            const REVIEW: &'static [(&'static str, &'static str)] =
                crate::tools::input::review_fields!(#(#review),*);

            #[allow(unused_variables)]
            fn parse_fields(
                object: &crate::value::ArgValue,
                ctx: &crate::context::ToolContext,
                errors: crate::tools::input::Errors,
            ) -> ::core::result::Result<Self, crate::error::ToolError> {
                #object_parse
                Ok(#name { #(#build),* })
            }
        }
    };

    let Some(tool_name) = &args.name else {
        let any_tool_attribute = args.description.is_some()
            || args.effect.is_some()
            || args.class.is_some()
            || args.output.is_some()
            || args.handler.is_some()
            || args.shape.is_some()
            || args.sandboxed.is_some()
            || args.object.is_some()
            || args.before.is_some()
            || args.then.is_some()
            || args.opt_in
            || args.spawns_processes
            || args.bare;
        if any_tool_attribute {
            return Err(syn::Error::new(
                Span::call_site(),
                "tool_input: a tool's attributes need its `name` (an options struct takes none)",
            ));
        }
        return Ok(fields_impl);
    };
    let required = |v: &Option<_>, what: &str| -> syn::Result<()> {
        if v.is_none() {
            return Err(syn::Error::new(
                Span::call_site(),
                format!("tool_input: `{what}` is required with `name`"),
            ));
        }
        Ok(())
    };
    required(&args.description.as_ref().map(|_| ()), "description")?;
    required(&args.effect.as_ref().map(|_| ()), "effect")?;
    required(&args.class.as_ref().map(|_| ()), "class")?;
    required(&args.output.as_ref().map(|_| ()), "output")?;
    required(&args.handler.as_ref().map(|_| ()), "handler")?;
    required(&args.shape.as_ref().map(|_| ()), "shape")?;
    let (description, effect, class, output, handler, shape) = (
        args.description.as_ref().unwrap(),
        args.effect.as_ref().unwrap(),
        args.class.as_ref().unwrap(),
        args.output.as_ref().unwrap(),
        args.handler.as_ref().unwrap(),
        args.shape.as_ref().unwrap(),
    );
    let (opt_in, spawns, bare) = (args.opt_in, args.spawns_processes, args.bare);

    let shape_value = match shape.to_string().as_str() {
        "Object" => match &args.sandboxed {
            Some(field) => {
                let key = fields
                    .iter()
                    .find(|f| f.ident == *field)
                    .map(|f| f.key.clone())
                    .ok_or_else(|| syn::Error::new_spanned(field, "no such field"))?;
                quote!(crate::tools::input::ArgShape::Object(Some(#key)))
            }
            None => quote!(crate::tools::input::ArgShape::Object(None)),
        },
        "PathAndField" | "PathAndOptions" | "OptionalPath" => {
            quote!(crate::tools::input::ArgShape::#shape)
        }
        _ => return Err(syn::Error::new_spanned(shape, "unknown shape")),
    };
    let parse = if shape == "Object" {
        let object_check = match args.object.as_ref().map(Ident::to_string).as_deref() {
            None | Some("any") => quote!(),
            Some("plain") => quote!(crate::tools::input::plain_object(input, errors, false)?;),
            Some("plain_or_absent") => {
                quote!(crate::tools::input::plain_object(input, errors, true)?;)
            }
            Some("engine") => {
                let first = keys.first().copied().unwrap_or_default();
                quote!(crate::tools::args::object_input(input, errors.class, #first)?;)
            }
            Some(_) => {
                return Err(syn::Error::new_spanned(
                    args.object.as_ref().unwrap(),
                    "object is any, plain, plain_or_absent or engine",
                ))
            }
        };
        quote! {
            let input = args.first().unwrap_or(&crate::value::ArgValue::Undefined);
            #object_check
            let parsed = <Self as crate::tools::input::InputFields>::parse_fields(input, ctx, errors)?;
        }
    } else {
        let positional = field_reads(
            &fields,
            &order,
            |index, _| quote!(args.get(#index).unwrap_or(&crate::value::ArgValue::Undefined)),
        );
        quote! {
            let parsed = {
                #positional
                #name { #(#build),* }
            };
        }
    };
    let before = args.before.as_ref().map(|f| quote!((#f)(ctx)?;));
    let then = args.then.as_ref().map(|f| quote!((#f)(&parsed)?;));
    let ts_options = fields.iter().find(|f| f.args.flatten).map(|f| {
        let ty = &f.ty;
        quote! {
            #[cfg(feature = "typegen")]
            const TS_OPTIONS: Option<crate::tstype::TsType> = Some(crate::tstype::ts::<#ty>());
        }
    });

    Ok(quote! {
        #fields_impl

        impl crate::tools::input::ToolInput for #name {
            const NAME: &'static str = #tool_name;
            const DESCRIPTION: &'static str = #description;
            const EFFECT: crate::tools::input::Effect = crate::tools::input::Effect::#effect;
            const ERROR_CLASS: crate::error::ErrorClass = #class;
            const HANDLER: crate::tools::input::Handler = {
                #[allow(unused_imports)]
                use crate::tools::input::Handler::*;
                #handler
            };
            const OPT_IN: bool = #opt_in;
            const SPAWNS_PROCESSES: bool = #spawns;
            const SHAPE: crate::tools::input::ArgShape = #shape_value;
            #ts_options
            #[cfg(feature = "typegen")]
            const TS_RESULT: crate::tstype::TsType = crate::tstype::ts::<#output>();

            #[allow(unused_variables)]
            fn from_args(
                args: &[crate::value::ArgValue],
                ctx: &crate::context::ToolContext,
            ) -> ::core::result::Result<Self, crate::error::ToolError> {
                let errors = crate::tools::input::Errors { class: #class, bare: #bare };
                #before
                #parse
                #then
                Ok(parsed)
            }
        }
    })
}

/// The `let` of each field in check order; `value(index, field)` is where an argument is read
/// from (its position counts the arguments before it).
fn field_reads(
    fields: &[FieldInfo],
    order: &[usize],
    value: impl Fn(usize, &FieldInfo) -> Tokens,
) -> Tokens {
    let positions: Vec<usize> = {
        let mut position = 0;
        fields
            .iter()
            .map(|f| {
                let here = position;
                if f.args.from.is_none() {
                    position += 1;
                }
                here
            })
            .collect()
    };
    let reads = order.iter().map(|&i| {
        let f = &fields[i];
        let (ident, ty, key) = (&f.ident, &f.ty, &f.key);
        if let Some(expr) = &f.args.from {
            return quote!(let #ident: #ty = (#expr)?;);
        }
        let source = value(positions[i], f);
        if f.args.flatten {
            let plain = f.args.plain_object;
            return quote! {
                let #ident: #ty = crate::tools::input::options(#source, #key, #plain, ctx, errors)?;
            };
        }
        let check = f.args.check.as_ref().expect("checked in expand");
        let default = match &f.args.default {
            Some(d) => quote!(Some(crate::tools::input::DefaultInto::default_into(#d))),
            None => quote!(None),
        };
        quote! {
            let #ident: #ty = (#check)(crate::tools::input::Field {
                key: #key,
                value: #source,
                default: #default,
                ctx,
                errors,
            })?;
        }
    });
    quote!(#(#reads)*)
}

/// Declaration order, with each `after = x` field moved to just after `x` (which may itself
/// have moved).
fn check_order(fields: &[FieldInfo]) -> syn::Result<Vec<usize>> {
    let mut order: Vec<usize> = (0..fields.len())
        .filter(|&i| fields[i].args.after.is_none())
        .collect();
    let mut waiting: Vec<usize> = (0..fields.len())
        .filter(|&i| fields[i].args.after.is_some())
        .collect();
    while !waiting.is_empty() {
        let before = waiting.len();
        waiting.retain(|&i| {
            let after = fields[i]
                .args
                .after
                .as_ref()
                .expect("waiting fields have after");
            match order.iter().position(|&j| fields[j].ident == *after) {
                Some(at) => {
                    order.insert(at + 1, i);
                    false
                }
                None => true,
            }
        });
        if waiting.len() == before {
            let after = fields[waiting[0]].args.after.as_ref().expect("has after");
            return Err(syn::Error::new_spanned(after, "no such field (or a cycle)"));
        }
    }
    Ok(order)
}

fn parse_field_args(attr: &Attribute) -> syn::Result<FieldArgs> {
    let mut args = FieldArgs::default();
    attr.parse_nested_meta(|meta| {
        let p = &meta.path;
        if p.is_ident("check") {
            args.check = Some(meta.value()?.parse()?);
        } else if p.is_ident("default") {
            args.default = Some(meta.value()?.parse()?);
        } else if p.is_ident("from") {
            args.from = Some(meta.value()?.parse()?);
        } else if p.is_ident("flatten") {
            args.flatten = true;
        } else if p.is_ident("object") {
            let kind: Ident = meta.value()?.parse()?;
            if kind != "plain" {
                return Err(meta.error("object = plain is the only choice for options"));
            }
            args.plain_object = true;
        } else if p.is_ident("optional") {
            args.optional = true;
        } else if p.is_ident("schema") {
            args.schema = Some(meta.value()?.parse()?);
        } else if p.is_ident("ts") {
            args.ts = Some(meta.value()?.parse()?);
        } else if p.is_ident("after") {
            args.after = Some(meta.value()?.parse()?);
        } else if p.is_ident("review") {
            args.review = Some(if meta.input.peek(syn::Token![=]) {
                Some(meta.value()?.parse()?)
            } else {
                None
            });
        } else {
            return Err(meta.error("unknown arg attribute"));
        }
        Ok(())
    })?;
    Ok(args)
}

/// The `rename` of a field's `#[serde(...)]`, which is its argument's key.
fn serde_rename(attrs: &[Attribute]) -> syn::Result<Option<String>> {
    let mut rename = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<Expr>()?;
            }
            Ok(())
        })?;
    }
    Ok(rename)
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// The schemars and ts-rs attributes a field's `#[arg]` implies: an optional argument (a
/// default, `optional`, or an `Option` field) is optional in the schema and in TypeScript, as
/// its `schema` type when that differs from the field's.
fn generated_attrs(ty: &Type, args: &FieldArgs) -> Vec<Attribute> {
    let mut out: Vec<Attribute> = Vec::new();
    if args.from.is_some() {
        out.push(syn::parse_quote!(#[schemars(skip)]));
        out.push(syn::parse_quote!(#[cfg_attr(feature = "typegen", ts(skip))]));
        return out;
    }
    if args.flatten {
        out.push(syn::parse_quote!(#[serde(flatten)]));
        return out;
    }
    let optional = args.default.is_some() || args.optional || is_option(ty);
    let argument_type = match &args.schema {
        Some(schema) => Some(quote!(#schema)),
        None if !is_option(ty) && optional => Some(quote!(#ty)),
        None => None,
    };
    let with = argument_type.map(|t| {
        let t = t.to_string();
        LitStr::new(
            &if t.starts_with("Option <") {
                t
            } else {
                format!("Option<{t}>")
            },
            Span::call_site(),
        )
    });
    if let Some(with) = &with {
        out.push(syn::parse_quote!(#[schemars(with = #with)]));
    }
    if let Some(default) = &args.default {
        out.push(syn::parse_quote!(#[schemars(extend("default" = #default))]));
    }
    match (&args.ts, &with) {
        (Some(ts), _) if optional => {
            out.push(syn::parse_quote!(#[cfg_attr(feature = "typegen", ts(type = #ts, optional))]))
        }
        (Some(ts), _) => {
            out.push(syn::parse_quote!(#[cfg_attr(feature = "typegen", ts(type = #ts))]))
        }
        (None, Some(with)) => out.push(syn::parse_quote!(
            #[cfg_attr(feature = "typegen", ts(as = #with, optional))]
        )),
        (None, None) if optional => {
            out.push(syn::parse_quote!(#[cfg_attr(feature = "typegen", ts(optional))]))
        }
        (None, None) => {}
    }
    out
}
