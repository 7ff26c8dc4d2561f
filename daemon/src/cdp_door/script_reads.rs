//! Which of a client's commands run or read script in its tab's document, for the vault's
//! rule (DESIGN.md §21 "Vault", §19a): script and secrets never share a document. Such a
//! command marks the document scripted (a login is then never filled there while it lives),
//! and in a document a login was filled into it is refused naming the rule
//! (`calls::DoorEntry::run_script`); input, navigation and screenshots still pass.
//!
//! The list: script (`Runtime.evaluate`, `callFunctionOn`, `compileScript`, `runScript`, and
//! the reads of what script holds: `getProperties`, `awaitPromise`, `queryObjects`,
//! `globalLexicalScopeNames`), a node made a script object (`DOM.resolveNode`), and reads
//! that carry a field's value (`DOMSnapshot`, the accessibility tree, the debugger and the
//! heap).

/// Whether `method` runs or reads script, or reads a field's value, in the document.
pub(super) fn runs_or_reads_script(method: &str) -> bool {
    let Some((domain, name)) = method.split_once('.') else {
        return false;
    };
    match domain {
        "Runtime" => matches!(
            name,
            "evaluate"
                | "callFunctionOn"
                | "compileScript"
                | "runScript"
                | "getProperties"
                | "awaitPromise"
                | "queryObjects"
                | "globalLexicalScopeNames"
        ),
        "DOM" => name == "resolveNode",
        "DOMSnapshot" | "Debugger" | "HeapProfiler" => !matches!(name, "enable" | "disable"),
        "Accessibility" => !matches!(name, "enable" | "disable"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::runs_or_reads_script;

    #[test]
    fn script_and_value_reads_are_named_input_and_navigation_are_not() {
        for method in [
            "Runtime.evaluate",
            "Runtime.callFunctionOn",
            "DOM.resolveNode",
            "DOMSnapshot.captureSnapshot",
            "Accessibility.getFullAXTree",
            "HeapProfiler.takeHeapSnapshot",
        ] {
            assert!(runs_or_reads_script(method), "{method}");
        }
        for method in [
            "Runtime.enable",
            "Input.insertText",
            "Page.navigate",
            "Page.captureScreenshot",
            "DOM.getDocument",
            "nonsense",
        ] {
            assert!(!runs_or_reads_script(method), "{method}");
        }
    }
}
