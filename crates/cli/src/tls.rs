//! `dgt-arbiter tls-selfsigned --name arbiter.local [--out DIR]`: a self-signed
//! certificate and key for `[http] tls_cert` and `tls_key`, and the fingerprint the
//! arbiters compare on their phones the first time they open the dashboard.

use std::path::PathBuf;

use anyhow::Context;
use daemon_config::tls::self_signed;

/// Arguments of `tls-selfsigned`.
#[derive(Debug, clap::Args)]
pub struct TlsArgs {
    /// A name the arbiters' phones use for the daemon (repeat for more; IP addresses
    /// too). Put the same names in `[http] names`.
    #[arg(long = "name", value_name = "NAME", required = true)]
    pub names: Vec<String>,
    /// The folder for arbiter-cert.pem and arbiter-key.pem.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
}

pub fn run(args: &TlsArgs) -> anyhow::Result<()> {
    let pair = self_signed(&args.names)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot make the folder {}", args.out.display()))?;
    let cert = args.out.join("arbiter-cert.pem");
    let key = args.out.join("arbiter-key.pem");
    for (path, text) in [(&cert, &pair.cert_pem), (&key, &pair.key_pem)] {
        if path.exists() {
            anyhow::bail!(
                "{} exists already: move it away first (the phones that trust it would \
                 have to trust a new one)",
                path.display()
            );
        }
        crash_safe::write_atomic(path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot make {} private", key.display()))?;
    println!("certificate: {}", cert.display());
    println!("key:         {} (keep it private)", key.display());
    println!("names:       {}", args.names.join(", "));
    println!("SHA-256 fingerprint: {}", pair.fingerprint);
    println!("public key SHA-256 (base64): {}", pair.spki_sha256_base64);
    println!(
        "in the config: [http] tls_cert = \"{}\", tls_key = \"{}\", names = [{}]",
        cert.display(),
        key.display(),
        args.names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
