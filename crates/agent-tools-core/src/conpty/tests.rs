//! The pure parts: command lines, the environment block, the keys written for `"\n"`.
use super::*;

fn text(wide: &[u16]) -> String {
    String::from_utf16(wide.strip_suffix(&[0]).unwrap()).unwrap()
}

#[test]
fn command_lines_quote_as_the_c_runtime_reads_them() {
    let argv = |args: &[&str]| -> Vec<String> { args.iter().map(|a| a.to_string()).collect() };
    let (app, line) = command_line(&argv(&[
        r"C:\p q\x.exe",
        "a b",
        "",
        r#"say "hi""#,
        r"end\",
        r"a\\b",
        "plain",
    ]))
    .unwrap();
    assert_eq!(text(&app), r"C:\p q\x.exe");
    assert_eq!(
        text(&line),
        r#""C:\p q\x.exe" "a b" "" "say \"hi\"" end\ a\\b plain"#
    );
    // Backslashes before a quote or the closing quote are doubled.
    let (_, line) = command_line(&argv(&[r"x.exe", r#"a\"b"#, r"c d\"])).unwrap();
    assert_eq!(text(&line), r#""x.exe" "a\\\"b" "c d\\""#);
    assert_eq!(
        command_line(&argv(&["x.exe", "nul\0"])).unwrap_err().kind(),
        io::ErrorKind::InvalidInput
    );
}

#[test]
fn batch_files_run_through_cmd_with_their_arguments_escaped() {
    let argv = |args: &[&str]| -> Vec<String> { args.iter().map(|a| a.to_string()).collect() };
    let (app, line) = command_line(&argv(&[
        r"C:\w\run.CMD",
        "x",
        "a b",
        "%PATH%",
        r#"q"t"#,
        "",
    ]))
    .unwrap();
    assert!(
        text(&app).to_ascii_lowercase().ends_with(r"\cmd.exe"),
        "{}",
        text(&app)
    );
    assert_eq!(
        text(&line),
        r#"cmd.exe /e:ON /v:OFF /d /c ""C:\w\run.CMD" x "a b" "%%cd:~,%PATH%%cd:~,%" "q""t" """"#
    );
    assert!(command_line(&argv(&[r"C:\w\run.bat", "a\nb"])).is_err());
}

#[test]
fn the_environment_block_is_sorted_without_case_and_ends_in_two_nuls() {
    let env: Vec<(OsString, OsString)> = [("b", "2"), ("Path", "x"), ("A", "1"), ("PATH", "y")]
        .iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    let block = environment_block(&env).unwrap();
    let expected: Vec<u16> = "A=1\0b=2\0PATH=y\0\0".encode_utf16().collect();
    assert_eq!(block, expected);
    assert_eq!(environment_block(&[]).unwrap(), [0, 0]);
}

#[test]
fn enter_is_a_carriage_return_and_other_keys_pass() {
    assert_eq!(enter_as_return(b"abc\x03\x1b[A"), None);
    assert_eq!(
        enter_as_return(b"a\nb\r\nc\r\x03\n").unwrap(),
        b"a\rb\rc\r\x03\r"
    );
}

/// The `size` helper in a pseudo console of 100 x 30, its output collected by a thread.
struct SizeHelper {
    process: OwnedHandle,
    console: Option<PseudoConsole>,
    input: std::fs::File,
    output: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl SizeHelper {
    fn start() -> SizeHelper {
        use crate::process::windows::test_helper;
        use std::io::Read;
        use std::os::windows::io::AsHandle;
        let argv = [test_helper::exe().to_string_lossy().into_owned()];
        let cwd = std::env::current_dir().unwrap();
        let Spawned {
            process,
            thread,
            console,
            input,
            output: pipe,
            ..
        } = spawn_suspended(&argv, &cwd, &test_helper::env("size"), (100, 30)).unwrap();
        let mut pipe = std::fs::File::from(pipe);
        let output = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let collected = std::sync::Arc::clone(&output);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut buf) {
                collected.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        crate::job::resume_thread(thread.as_handle()).unwrap();
        SizeHelper {
            process,
            console: Some(console),
            input: std::fs::File::from(input),
            output,
        }
    }

    /// The sizes the helper printed, once there are `count` (30 s at most).
    fn sizes(&self, count: usize) -> Vec<String> {
        let re = regex::Regex::new(r"\d+x\d+").unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let text = String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned();
            let sizes: Vec<String> = re
                .find_iter(&text)
                .map(|m| m.as_str().to_string())
                .collect();
            if sizes.len() >= count || std::time::Instant::now() > until {
                return sizes;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    fn console(&self) -> &PseudoConsole {
        self.console.as_ref().unwrap()
    }

    fn enter(&mut self) {
        use std::io::Write;
        self.input.write_all(b"\r").unwrap();
    }
}

impl Drop for SizeHelper {
    /// Closing the console ends the program attached to it.
    fn drop(&mut self) {
        drop(self.console.take());
        let process = self.process.as_raw_handle() as HANDLE;
        // SAFETY: the process handle is open.
        let pid = unsafe { windows_sys::Win32::System::Threading::GetProcessId(process) };
        let ended = crate::process::windows::test_helper::process_ends_soon(pid);
        if !std::thread::panicking() {
            assert!(ended, "the program outlived its console");
        }
    }
}

/// A resize the system cannot make (`E_NOTIMPL`, wine 8) is no error: the console keeps its
/// size and the program runs on.
#[test]
fn conpty_resize_is_no_error_where_the_system_cannot() {
    let _one = crate::process::windows::test_helper::console();
    let mut helper = SizeHelper::start();
    assert_eq!(helper.sizes(1), ["100x30"]);
    let resized = helper.console().resize(120, 40).unwrap();
    assert_eq!(resized, !under_wine(), "wine 8 answers E_NOTIMPL");
    helper.enter();
    let sizes = helper.sizes(2);
    assert_eq!(sizes.len(), 2, "the program runs on: {sizes:?}");
    assert_eq!(sizes[1], if resized { "120x40" } else { "100x30" });
}

#[test]
#[ignore = "wine 8: ResizePseudoConsole returns E_NOTIMPL; run on Windows"]
fn conpty_resize_reaches_the_program() {
    let _one = crate::process::windows::test_helper::console();
    let mut helper = SizeHelper::start();
    assert_eq!(helper.sizes(1), ["100x30"]);
    assert!(helper.console().resize(120, 40).unwrap());
    helper.enter();
    assert_eq!(helper.sizes(2), ["100x30", "120x40"]);
}

/// A read whose pipe never breaks (its write end still held) ends once the grace has passed.
#[test]
fn an_output_read_that_never_ends_is_cancelled_after_the_grace() {
    use std::io::Read;
    let (read, write) = pipe().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let reader = std::sync::Arc::new(OutputReader::this_thread().unwrap());
        sender.send(std::sync::Arc::clone(&reader)).unwrap();
        let mut buf = [0u8; 16];
        let got = std::fs::File::from(read).read(&mut buf);
        reader.finished();
        got.map_err(|e| e.raw_os_error())
    });
    let reader = receiver.recv().unwrap();
    let started = Instant::now();
    reader.stop_after(Duration::from_millis(100));
    assert!(started.elapsed() >= Duration::from_millis(100));
    // ERROR_OPERATION_ABORTED
    assert_eq!(thread.join().unwrap(), Err(Some(995)));
    drop(write);
}
