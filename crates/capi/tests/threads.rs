//! Handles hold no thread's state: machines made on one thread run on
//! others, several at once (each used by one thread at a time).

use std::ffi::CString;
use std::ptr::null_mut;
use xstore::*;

/// A handle's address, to move it to another thread.
struct Moved(usize);

#[test]
fn machines_made_here_run_on_other_threads_at_once() {
    let name = CString::new("neuron").unwrap();
    let source = CString::new("tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)").unwrap();
    // SAFETY: each handle is made here, used by one thread at a time, freed once.
    unsafe {
        let mut isa = null_mut();
        assert_eq!(
            xstore_isa_new(name.as_ptr(), &mut isa),
            xstore_status::XSTORE_OK
        );
        let machines: Vec<Moved> = (0..4)
            .map(|_| {
                let mut m = null_mut();
                assert_eq!(
                    xstore_machine_new(isa, std::ptr::null(), &mut m),
                    xstore_status::XSTORE_OK
                );
                let mut p = null_mut();
                assert_eq!(
                    xstore_program_new_text(isa, source.as_ptr(), &mut p),
                    xstore_status::XSTORE_OK
                );
                let mut fx = null_mut();
                assert_eq!(xstore_effects_new(&mut fx), xstore_status::XSTORE_OK);
                Moved(Box::into_raw(Box::new((m, p, fx))) as usize)
            })
            .collect();
        let runs: Vec<_> = machines
            .into_iter()
            .map(|h| {
                std::thread::spawn(move || {
                    let (m, p, fx) = *Box::from_raw(
                        h.0 as *mut (
                            *mut xstore_machine,
                            *mut xstore_program,
                            *mut xstore_effects,
                        ),
                    );
                    let mut n = 0;
                    for _ in 0..50 {
                        assert_eq!(xstore_machine_execute(m, p, fx), xstore_status::XSTORE_OK);
                        xstore_effects_write_count(fx, &mut n);
                        assert_eq!(n, 1);
                    }
                    xstore_effects_free(fx);
                    xstore_program_free(p);
                    xstore_machine_free(m);
                })
            })
            .collect();
        for r in runs {
            r.join().expect("the thread's runs pass");
        }
        xstore_isa_free(isa);
    }
}
