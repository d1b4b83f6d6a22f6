//! The C and C++ tests (`tests/run.sh`) against the library this test was
//! built with: every call and its error paths from C99, plain and under
//! AddressSanitizer (leak checker on) and UndefinedBehaviorSanitizer, and the
//! documentation's C and C++ examples, the C one printing what the
//! documentation shows. A missing compiler fails the test, saying so.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn the_c_and_cpp_tests_pass() {
    let exe = std::env::current_exe().expect("the test's path");
    // target/<profile>/deps holds the test and the library's libxstore.{a,so}.
    let deps = exe.parent().expect("the test's folder").to_path_buf();
    let out = deps
        .parent()
        .expect("the profile's folder")
        .join("capi-tests");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/run.sh");
    let run = Command::new("bash")
        .arg(&script)
        .env("XSTORE_LIB_DIR", &deps)
        .env("XSTORE_TEST_OUT", &out)
        .output()
        .expect("bash runs tests/run.sh");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "tests/run.sh failed:\n{text}");
    assert!(text.contains("run.sh: all passed"), "{text}");
    // The C example prints what docs/cosim.md says it prints.
    let printed = std::fs::read_to_string(out.join("example_c.out")).expect("the example's output");
    let doc = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/cosim.md"),
    )
    .expect("docs/cosim.md");
    let shown = doc
        .split_once("It prints:\n\n```\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("docs/cosim.md shows the C example's output");
    assert_eq!(
        printed, shown,
        "the C example's output against docs/cosim.md"
    );
}
