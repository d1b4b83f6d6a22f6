//! The C and C++ tests (`tests/run.sh`) against the library this test was
//! built with: every call and its error paths from C99, plain and under
//! AddressSanitizer (leak checker on) and UndefinedBehaviorSanitizer, and the
//! documentation's C and C++ examples. A missing compiler fails the test,
//! saying so.

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
}
