//! What the command line's flags mean beyond what clap checks: a flag is one setting wherever
//! it stands, so one given twice with different values (`kaadxpay --db-pool-size 4 migrate
//! --db-pool-size 8`, or twice before the subcommand) is refused, and the same value twice is
//! that value. (clap keeps the last of a global flag given at two levels, silently.)

use std::collections::hash_map::{Entry, HashMap};
use std::collections::HashSet;
use std::ffi::OsString;

use clap::Command;

/// The one line that refuses the first flag `args` (the program's name first) give twice with
/// different values; `None` when each is given once or always alike. The values are not
/// repeated: a flag may hold a secret.
pub fn given_twice(command: &Command, args: &[OsString]) -> Option<String> {
    let mut with_values = HashSet::new();
    flags_with_values(command, &mut with_values);
    let mut given: HashMap<String, OsString> = HashMap::new();
    let mut args = args.iter().skip(1);
    while let Some(arg) = args.next() {
        let Some(flag) = arg.to_str().and_then(|arg| arg.strip_prefix("--")) else {
            continue;
        };
        if flag.is_empty() {
            break;
        }
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) => (name, Some(OsString::from(value))),
            None => (flag, None),
        };
        if !with_values.contains(name) {
            continue;
        }
        let Some(value) = inline.or_else(|| args.next().cloned()) else {
            continue;
        };
        match given.entry(name.to_owned()) {
            Entry::Occupied(first) if *first.get() != value => {
                return Some(format!(
                    "--{name} is given twice with different values; give it once."
                ));
            }
            Entry::Occupied(_) => {}
            Entry::Vacant(first) => {
                first.insert(value);
            }
        }
    }
    None
}

/// The long names of the flags that take a value, in `command` and its subcommands.
fn flags_with_values(command: &Command, into: &mut HashSet<String>) {
    for arg in command.get_arguments() {
        if let (true, Some(long)) = (arg.get_action().takes_values(), arg.get_long()) {
            into.insert(long.to_owned());
        }
    }
    for subcommand in command.get_subcommands() {
        flags_with_values(subcommand, into);
    }
}
