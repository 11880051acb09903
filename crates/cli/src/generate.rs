//! `dgt-arbiter generate DIR` (hidden): writes the man pages and the shell completions
//! from the command-line definitions, for the Debian package (scripts/build-deb.sh), so
//! that they never drift from `--help`.

use std::path::PathBuf;

use anyhow::Context;
use clap_complete::Shell;

/// Arguments of `generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// The folder to write into: `man/` (dgt-arbiter.1 and a page per subcommand) and
    /// `completions/` (bash, zsh, fish).
    pub dir: PathBuf,
}

pub fn run(args: &GenerateArgs, command: clap::Command) -> anyhow::Result<()> {
    let man = args.dir.join("man");
    let completions = args.dir.join("completions");
    for dir in [&man, &completions] {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    clap_mangen::generate_to(command.clone(), &man)
        .with_context(|| format!("cannot write the man pages in {}", man.display()))?;
    let mut command = command;
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
        clap_complete::generate_to(shell, &mut command, "dgt-arbiter", &completions)
            .with_context(|| format!("cannot write the {shell} completion"))?;
    }
    Ok(())
}
