//! A Rust type seen from TypeScript (ts-rs), for the catalog (`registry::ToolSpec`) and the
//! generator of types/tools.d.ts (`typegen`), which both use it.

use std::any::TypeId;

use ts_rs::{Config, TypeVisitor, TS};

/// A Rust type seen from TypeScript: its name and a way to collect its declarations.
#[derive(Clone, Copy)]
pub struct TsType {
    pub name: fn(&Config) -> String,
    pub collect: fn(&mut Collector),
}

pub const fn ts<T: TS + 'static>() -> TsType {
    TsType {
        name: T::name,
        collect: collect::<T>,
    }
}

fn collect<T: TS + 'static>(c: &mut Collector) {
    c.visit::<T>();
}

/// Declarations of a type and everything it refers to, each once, dependencies first.
pub struct Collector {
    pub cfg: Config,
    pub seen: Vec<TypeId>,
    pub decls: Vec<String>,
}

impl TypeVisitor for Collector {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if T::output_path().is_none() || self.seen.contains(&TypeId::of::<T>()) {
            return;
        }
        self.seen.push(TypeId::of::<T>());
        T::visit_dependencies(self);
        self.decls.push(format!("export {}", T::decl(&self.cfg)));
    }
}
