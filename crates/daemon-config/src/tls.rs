//! HTTPS for the hall Wi-Fi: the arbiters' phones carry the token, and on a shared
//! network plain HTTP shows it to anyone listening. rustls with the `ring` provider (no
//! OpenSSL); `[http] tls_cert` and `tls_key` name PEM files, and
//! `dgt-arbiter tls-selfsigned` makes a self-signed pair whose fingerprint the arbiters
//! compare on their phones.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::TlsFiles;
use crash_safe::read_bounded;

/// Largest PEM file read (a chain of a few certificates is a few KiB).
pub const MAX_PEM: u64 = 1 << 20;

/// Why TLS cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)")]
    NoCertificate { path: PathBuf },
    #[error("{path} holds no usable private key (expected a PEM PRIVATE KEY): {message}")]
    NoKey { path: PathBuf, message: String },
    #[error("the certificate and key cannot serve TLS: {0}")]
    Rustls(#[from] rustls::Error),
    #[error("cannot make a certificate: {0}")]
    Generate(#[from] rcgen::Error),
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    read_bounded(path, MAX_PEM).map_err(|source| TlsError::Read {
        path: path.to_owned(),
        source,
    })
}

/// The rustls server configuration of these files (HTTP/1.1 only).
pub fn server_config(files: &TlsFiles) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let cert_pem = read(&files.cert)?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
        .filter_map(Result::ok)
        .collect();
    if certs.is_empty() {
        return Err(TlsError::NoCertificate {
            path: files.cert.clone(),
        });
    }
    let key_pem = read(&files.key)?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| TlsError::NoKey {
        path: files.key.clone(),
        message: e.to_string(),
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(certs, key)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// A self-signed certificate and its key, PEM, with the fingerprints to check it by.
pub struct SelfSigned {
    pub cert_pem: String,
    pub key_pem: String,
    /// SHA-256 of the certificate, `AB:CD:...` (what a phone's browser shows).
    pub fingerprint: String,
    /// SHA-256 of the public key (SubjectPublicKeyInfo), base64: what Chromium's
    /// `--ignore-certificate-errors-spki-list` takes.
    pub spki_sha256_base64: String,
}

/// A self-signed pair for these names (the first is the subject).
pub fn self_signed(names: &[String]) -> Result<SelfSigned, TlsError> {
    let rcgen::CertifiedKey { cert, key_pair } = rcgen::generate_simple_self_signed(names)?;
    Ok(SelfSigned {
        cert_pem: cert.pem(),
        key_pem: key_pair.serialize_pem(),
        fingerprint: fingerprint(cert.der()),
        spki_sha256_base64: base64(sha256(&key_pair.public_key_der()).as_ref()),
    })
}

fn sha256(bytes: &[u8]) -> ring::digest::Digest {
    ring::digest::digest(&ring::digest::SHA256, bytes)
}

/// The SHA-256 fingerprint of a DER certificate, `AB:CD:...`.
pub fn fingerprint(der: &[u8]) -> String {
    sha256(der)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// Standard base64 with padding (the one place the daemon needs it).
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_the_standard_one() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn a_self_signed_pair_serves_tls() {
        let dir = std::env::temp_dir().join(format!("dgt-tls-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pair = self_signed(&["arbiter.local".into()]).unwrap();
        assert_eq!(pair.fingerprint.len(), 32 * 3 - 1);
        let files = TlsFiles {
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
        };
        std::fs::write(&files.cert, &pair.cert_pem).unwrap();
        std::fs::write(&files.key, &pair.key_pem).unwrap();
        assert!(server_config(&files).is_ok());
        // The key where the certificate should be: said plainly.
        let swapped = TlsFiles {
            cert: files.key.clone(),
            key: files.key.clone(),
        };
        let e = server_config(&swapped).err().unwrap().to_string();
        assert!(e.contains("no PEM certificate"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
