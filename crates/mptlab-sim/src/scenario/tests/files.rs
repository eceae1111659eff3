//! The shipped scenario files load, and every broken example under `tests/scenarios/broken/`
//! fails exactly as its first line `# expect: <key> | <word in reason>` says.

use super::super::load;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn shipped_scenarios_load() {
    let root = repo().join("scenarios");
    let files: Vec<_> = toml_files(&root).into_iter().chain(toml_files(&root.join("bench"))).collect();
    assert!(files.len() >= 5);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if let Err(e) = load(&text, &[], None) {
            panic!("{}: {e}", f.display());
        }
    }
}

#[test]
fn broken_scenarios_fail_as_their_expect_line_says() {
    let files = toml_files(&repo().join("tests/scenarios/broken"));
    assert!(files.len() >= 20, "only {} broken examples", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect:"))
            .unwrap_or_else(|| panic!("{}: first line must be `# expect: <key> | <word>`", f.display()));
        let (key, word) = expect.split_once('|').expect("`# expect: <key> | <word>`");
        let (key, word) = (key.trim(), word.trim());
        match load(&text, &[], None) {
            Ok(_) => panic!("{}: loaded, expected `{key}: ...{word}...`", f.display()),
            Err(e) => {
                assert_eq!(e.key, key, "{}: got `{e}`", f.display());
                assert!(e.to_string().contains(word), "{}: `{e}` lacks `{word}`", f.display());
            }
        }
    }
}
