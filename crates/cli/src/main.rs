//! `dgt-arbiter`: the command-line entry point. Each subcommand lives in its own module.

fn main() -> anyhow::Result<()> {
    Ok(())
}
