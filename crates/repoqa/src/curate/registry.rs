//! Fresh splits: packages whose **first** release is after a date, read from
//! a package registry's own metadata — PyPI's JSON API, the npm registry's
//! package document, the crates.io API — and the source archive each names,
//! checked against the registry's hash before it is curated.
//!
//! Pure: the URLs to ask, the replies read, the archive's hash checked and
//! the repository's record written. Fetching is the front's business (the
//! CLI's `curate_registry`). A reply that is not the registry's documented
//! shape is an error naming the URL and what was missing, never a package
//! silently left out.
//!
//! Every curated repository records where it came from, as fields the
//! official harness does not read (so the dataset stays loadable by it):
//! `registry`, `package`, `version`, `first_release` (the registry's
//! timestamp) and `archive_sha256`. `input::freshness` reads them back.

use base64::Engine as _;
use serde_json::Value;
use sha2::Digest as _;
use thiserror::Error;

use crate::code::lang::Language;
use crate::input::dataset::Repo;
use crate::input::freshness::Day;
use crate::input::identity::sha256_hex;

/// The registries a fresh split is taken from; each gives one language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registry {
    Pypi,
    Npm,
    Crates,
}

impl Registry {
    pub fn name(self) -> &'static str {
        match self {
            Registry::Pypi => "pypi",
            Registry::Npm => "npm",
            Registry::Crates => "crates",
        }
    }

    /// How people write the registry's name.
    pub fn title(self) -> &'static str {
        match self {
            Registry::Pypi => "PyPI",
            Registry::Npm => "npm",
            Registry::Crates => "crates.io",
        }
    }

    pub fn from_name(name: &str) -> Option<Registry> {
        [Registry::Pypi, Registry::Npm, Registry::Crates].into_iter().find(|r| r.name() == name)
    }

    /// The language curated from the registry's packages.
    pub fn language(self) -> Language {
        match self {
            Registry::Pypi => Language::Python,
            Registry::Npm => Language::TypeScript,
            Registry::Crates => Language::Rust,
        }
    }

    /// The public registry's address (`--index-url` replaces it).
    pub fn default_index(self) -> &'static str {
        match self {
            Registry::Pypi => "https://pypi.org",
            Registry::Npm => "https://registry.npmjs.org",
            Registry::Crates => "https://crates.io",
        }
    }

    /// The package's metadata document.
    pub fn metadata_url(self, index: &str, package: &str) -> String {
        let index = index.trim_end_matches('/');
        match self {
            Registry::Pypi => format!("{index}/pypi/{package}/json"),
            // A scoped name's slash is escaped, as npm's own client does.
            Registry::Npm => format!("{index}/{}", package.replace('/', "%2f")),
            Registry::Crates => format!("{index}/api/v1/crates/{package}"),
        }
    }

    /// The `page`th (from 0) page of the registry's packages by its own
    /// popularity signal: crates.io's recent downloads, npm search's
    /// popularity score over TypeScript packages. PyPI publishes none.
    pub fn popular_url(self, index: &str, page: usize) -> Result<String, RegistryError> {
        let index = index.trim_end_matches('/');
        match self {
            Registry::Pypi => Err(RegistryError::NoPopularity { registry: self }),
            Registry::Npm => Ok(format!(
                "{index}/-/v1/search?text=keywords:typescript&size={POPULAR_PAGE}&from={}&popularity=1.0&quality=0.0&maintenance=0.0",
                page * POPULAR_PAGE
            )),
            Registry::Crates => Ok(format!(
                "{index}/api/v1/crates?sort=recent-downloads&per_page={POPULAR_PAGE}&page={}",
                page + 1
            )),
        }
    }

    /// The packages of a [`popular_url`](Registry::popular_url) page, most
    /// popular first, each with its first release day where the list gives
    /// it (crates.io's `created_at`; npm's search gives none). An empty
    /// page: the list is over.
    pub fn read_popular(
        self,
        url: &str,
        status: u16,
        body: &str,
    ) -> Result<Vec<(String, Option<Day>)>, RegistryError> {
        let doc = read_json(self, "the popular packages", url, status, body)?;
        let list = match self {
            Registry::Pypi => return Err(RegistryError::NoPopularity { registry: self }),
            Registry::Npm => doc.get("objects"),
            Registry::Crates => doc.get("crates"),
        };
        let Some(list) = list.and_then(Value::as_array) else {
            let key = if self == Registry::Npm { "objects" } else { "crates" };
            return Err(garbage(self, url, format!("no {key:?} list")));
        };
        let mut names: Vec<(String, Option<Day>, f64)> = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let name = match self {
                Registry::Npm => item.pointer("/package/name"),
                _ => item.get("name"),
            };
            let Some(name) = name.and_then(Value::as_str) else {
                return Err(garbage(self, url, format!("package {i} has no name")));
            };
            let rank = match self {
                Registry::Npm => {
                    item.pointer("/score/detail/popularity").and_then(Value::as_f64).unwrap_or(0.0)
                }
                _ => -(i as f64),
            };
            let created =
                item.get("created_at").and_then(Value::as_str).and_then(Day::from_timestamp);
            names.push((name.to_string(), created, rank));
        }
        // npm's search weighs more than popularity whatever is asked: sort.
        names.sort_by(|a, b| b.2.total_cmp(&a.2));
        Ok(names.into_iter().map(|(n, d, _)| (n, d)).collect())
    }

    /// The package's latest release, its first release date and its source
    /// archive, from its metadata document (`status` and `body` as fetched
    /// from [`metadata_url`](Registry::metadata_url)).
    pub fn read_release(
        self,
        package: &str,
        url: &str,
        status: u16,
        body: &str,
    ) -> Result<Release, RegistryError> {
        if status == 404 {
            return Err(RegistryError::NotFound {
                registry: self,
                package: package.into(),
                url: url.into(),
            });
        }
        let doc = read_json(self, package, url, status, body)?;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let (version, first_release, archive) = match self {
            Registry::Pypi => {
                let version = text(doc.pointer("/info/version"))
                    .ok_or_else(|| garbage(self, url, "no info.version".into()))?;
                let releases = doc
                    .get("releases")
                    .and_then(Value::as_object)
                    .ok_or_else(|| garbage(self, url, "no \"releases\" object".into()))?;
                // The first release is the earliest file uploaded.
                let first = releases
                    .values()
                    .filter_map(Value::as_array)
                    .flatten()
                    .filter_map(|f| {
                        text(f.get("upload_time_iso_8601")).or_else(|| text(f.get("upload_time")))
                    })
                    .min();
                let urls = doc
                    .get("urls")
                    .and_then(Value::as_array)
                    .ok_or_else(|| garbage(self, url, "no \"urls\" list".into()))?;
                let sdist = urls
                    .iter()
                    .find(|f| f.get("packagetype").and_then(Value::as_str) == Some("sdist"));
                let archive = sdist.map(|f| {
                    (text(f.get("url")), text(f.pointer("/digests/sha256")).map(Digest::Sha256))
                });
                (version, first, archive)
            }
            Registry::Npm => {
                let version = text(doc.pointer("/dist-tags/latest"))
                    .ok_or_else(|| garbage(self, url, "no dist-tags.latest".into()))?;
                let time = doc
                    .get("time")
                    .and_then(Value::as_object)
                    .ok_or_else(|| garbage(self, url, "no \"time\" object".into()))?;
                // `created` is the first publish; else the earliest version's.
                let first = text(time.get("created")).or_else(|| {
                    time.iter()
                        .filter(|(k, _)| k.as_str() != "modified")
                        .filter_map(|(_, v)| v.as_str().map(str::to_string))
                        .min()
                });
                let dist = doc
                    .get("versions")
                    .and_then(|v| v.get(&version))
                    .ok_or_else(|| garbage(self, url, format!("no versions[{version:?}]")))?
                    .get("dist");
                let archive = dist.and_then(|d| d.get("tarball")).map(|t| {
                    let digest = dist.and_then(|d| {
                        text(d.get("integrity"))
                            .and_then(|i| Digest::from_integrity(&i))
                            .or_else(|| text(d.get("shasum")).map(Digest::Sha1))
                    });
                    (t.as_str().map(str::to_string), digest)
                });
                (version, first, archive)
            }
            Registry::Crates => {
                let krate = doc
                    .get("crate")
                    .ok_or_else(|| garbage(self, url, "no \"crate\" object".into()))?;
                let version = text(krate.get("max_stable_version"))
                    .or_else(|| text(krate.get("newest_version")))
                    .or_else(|| text(krate.get("max_version")))
                    .ok_or_else(|| garbage(self, url, "no crate.newest_version".into()))?;
                let first = text(krate.get("created_at"));
                let versions = doc
                    .get("versions")
                    .and_then(Value::as_array)
                    .ok_or_else(|| garbage(self, url, "no \"versions\" list".into()))?;
                let v = versions
                    .iter()
                    .find(|v| v.get("num").and_then(Value::as_str) == Some(version.as_str()));
                let archive = v.map(|v| {
                    let path = text(v.get("dl_path"));
                    let origin = url.find("/api/").map(|i| &url[..i]).unwrap_or("");
                    let link = path.map(|p| {
                        if origin == Registry::Crates.default_index() {
                            // What crates.io asks downloaders to use.
                            format!("https://static.crates.io/crates/{package}/{package}-{version}.crate")
                        } else if p.starts_with('/') {
                            format!("{origin}{p}")
                        } else {
                            p
                        }
                    });
                    (link, text(v.get("checksum")).map(Digest::Sha256))
                });
                (version, first, archive)
            }
        };
        let first_release = first_release.ok_or_else(|| {
            garbage(self, url, format!("no first-release date for {package} (no upload times)"))
        })?;
        let first_day = Day::from_timestamp(&first_release).ok_or_else(|| {
            garbage(self, url, format!("first-release date {first_release:?} is not a date"))
        })?;
        let no_archive = || RegistryError::NoSourceArchive {
            registry: self,
            package: package.into(),
            version: version.clone(),
        };
        let (archive_url, digest) = archive.ok_or_else(no_archive)?;
        let archive_url = archive_url.ok_or_else(no_archive)?;
        let digest = digest.ok_or_else(|| RegistryError::NoHash {
            registry: self,
            package: package.into(),
            version: version.clone(),
        })?;
        Ok(Release {
            registry: self,
            package: package.into(),
            version,
            first_release,
            first_day,
            archive_url,
            digest,
        })
    }
}

/// Packages per page of a popularity list.
pub(crate) const POPULAR_PAGE: usize = 100;

/// The hash a registry publishes for an archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Digest {
    /// Hex (PyPI's `digests.sha256`, crates.io's `checksum`).
    Sha256(String),
    /// npm's `dist.integrity` `sha512-<base64>`, decoded.
    Sha512(Vec<u8>),
    /// npm's older `dist.shasum` (hex), only where no integrity is given.
    Sha1(String),
}

impl Digest {
    /// A subresource-integrity string's SHA-512 (npm gives only that one).
    fn from_integrity(text: &str) -> Option<Digest> {
        let b64 = text.split_whitespace().find_map(|t| t.strip_prefix("sha512-"))?;
        base64::engine::general_purpose::STANDARD.decode(b64).ok().map(Digest::Sha512)
    }

    fn algorithm(&self) -> &'static str {
        match self {
            Digest::Sha256(_) => "SHA-256",
            Digest::Sha512(_) => "SHA-512",
            Digest::Sha1(_) => "SHA-1",
        }
    }

    fn text(&self) -> String {
        match self {
            Digest::Sha256(h) | Digest::Sha1(h) => h.to_ascii_lowercase(),
            Digest::Sha512(b) => base64::engine::general_purpose::STANDARD.encode(b),
        }
    }

    /// The same digest of `bytes`, written as this one is.
    fn of(&self, bytes: &[u8]) -> String {
        match self {
            Digest::Sha256(_) => sha256_hex(bytes),
            Digest::Sha512(_) => {
                base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(bytes))
            }
            Digest::Sha1(_) => {
                sha1::Sha1::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
            }
        }
    }
}

/// A package's latest release as its registry describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub registry: Registry,
    pub package: String,
    pub version: String,
    /// The registry's timestamp of the package's first release.
    pub first_release: String,
    pub first_day: Day,
    pub archive_url: String,
    pub digest: Digest,
}

impl Release {
    /// First released strictly after `day`.
    pub fn is_fresh(&self, after: Day) -> bool {
        self.first_day > after
    }

    /// The dataset's name of the repository: `<registry>/<package>`.
    pub fn repo_name(&self) -> String {
        format!("{}/{}", self.registry.name(), self.package)
    }

    /// Check the downloaded archive against the registry's hash; its
    /// SHA-256 (hex) when it matches.
    pub fn check_archive(&self, bytes: &[u8]) -> Result<String, RegistryError> {
        let got = self.digest.of(bytes);
        if got != self.digest.text() {
            return Err(RegistryError::HashMismatch {
                release: format!("{} {}", self.package, self.version),
                url: self.archive_url.clone(),
                algorithm: self.digest.algorithm(),
                expected: self.digest.text(),
                got,
            });
        }
        Ok(sha256_hex(bytes))
    }

    /// Write where the repository came from into it (fields the official
    /// harness does not read).
    pub fn record(&self, repo: &mut Repo, archive_sha256: &str) {
        let fields = [
            ("registry", self.registry.name()),
            ("package", self.package.as_str()),
            ("version", self.version.as_str()),
            ("first_release", self.first_release.as_str()),
            ("archive_sha256", archive_sha256),
        ];
        for (k, v) in fields {
            repo.extra.insert(k.to_string(), Value::String(v.to_string()));
        }
    }
}

#[derive(Debug, Error)]
pub enum RegistryError {
    #[error("--released-after {given:?}: not a date (YYYY-MM-DD)")]
    BadDate { given: String },
    #[error("{url}: {package} is not on {} (404)", .registry.title())]
    NotFound { registry: Registry, package: String, url: String },
    #[error("{url}: {} answered {status}, not the package's metadata", .registry.title())]
    Status { registry: Registry, url: String, status: u16 },
    #[error("{url}: not {}'s documented JSON ({message})", .registry.title())]
    Garbage { registry: Registry, url: String, message: String },
    #[error(
        "{package} {version} on {} has no source archive{}; it cannot be curated",
        .registry.title(),
        if *.registry == Registry::Pypi { " (sdist), only wheels" } else { "" }
    )]
    NoSourceArchive { registry: Registry, package: String, version: String },
    #[error("{package} {version} on {}: the source archive has no hash to check it against", .registry.title())]
    NoHash { registry: Registry, package: String, version: String },
    #[error(
        "{url}: the archive of {release} does not match the registry's {algorithm} (expected {expected}, got {got}); not curated"
    )]
    HashMismatch {
        /// "package version".
        release: String,
        url: String,
        algorithm: &'static str,
        expected: String,
        got: String,
    },
    #[error("{} publishes no popularity signal; name the packages with --packages", .registry.title())]
    NoPopularity { registry: Registry },
}

fn garbage(registry: Registry, url: &str, message: String) -> RegistryError {
    RegistryError::Garbage { registry, url: url.into(), message }
}

/// A reply's JSON object, or the error naming what it was instead.
fn read_json(
    registry: Registry,
    what: &str,
    url: &str,
    status: u16,
    body: &str,
) -> Result<Value, RegistryError> {
    if status != 200 {
        return Err(RegistryError::Status { registry, url: url.into(), status });
    }
    let doc: Value = serde_json::from_str(body).map_err(|e| {
        garbage(registry, url, format!("{what}: {e}; the reply begins {:?}", head(body)))
    })?;
    if !doc.is_object() {
        return Err(garbage(registry, url, format!("{what}: not a JSON object")));
    }
    Ok(doc)
}

/// The first characters of a reply, for a message.
fn head(body: &str) -> String {
    body.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pypi_release_reads_the_earliest_upload_and_the_sdist() {
        let body = serde_json::json!({
            "info": {"version": "2.0"},
            "releases": {
                "1.0": [{"upload_time_iso_8601": "2026-04-02T10:00:00.000000Z"}],
                "2.0": [{"upload_time_iso_8601": "2026-05-01T10:00:00.000000Z"}],
                "0.0": []
            },
            "urls": [
                {"packagetype": "bdist_wheel", "url": "http://x/w.whl", "digests": {"sha256": "00"}},
                {"packagetype": "sdist", "url": "http://x/p-2.0.tar.gz", "digests": {"sha256": "AB"}}
            ]
        })
        .to_string();
        let r = Registry::Pypi.read_release("p", "http://x/pypi/p/json", 200, &body).unwrap();
        assert_eq!(r.version, "2.0");
        assert_eq!(r.first_day.to_string(), "2026-04-02");
        assert_eq!(r.archive_url, "http://x/p-2.0.tar.gz");
        assert_eq!(r.digest, Digest::Sha256("AB".into()));
        assert!(r.is_fresh(Day::parse("2026-04-01").unwrap()));
        assert!(!r.is_fresh(Day::parse("2026-04-02").unwrap()));
    }

    #[test]
    fn bad_replies_name_the_url_and_what_is_missing() {
        let url = "http://x/pypi/p/json";
        let e = Registry::Pypi.read_release("p", url, 200, "<html>").unwrap_err().to_string();
        assert!(e.starts_with("http://x/pypi/p/json: not PyPI's documented JSON"), "{e}");
        let e = Registry::Pypi.read_release("p", url, 200, "{}").unwrap_err().to_string();
        assert!(e.contains("no info.version"), "{e}");
        let e = Registry::Pypi.read_release("p", url, 404, "").unwrap_err().to_string();
        assert_eq!(e, "http://x/pypi/p/json: p is not on PyPI (404)");
        let e = Registry::Pypi.read_release("p", url, 503, "").unwrap_err().to_string();
        assert!(e.contains("answered 503"), "{e}");
    }

    #[test]
    fn npm_integrity_and_crates_checksum_are_checked() {
        let bytes = b"archive bytes";
        let integrity = format!(
            "sha512-{}",
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(bytes))
        );
        let body = serde_json::json!({
            "dist-tags": {"latest": "1.0.0"},
            "time": {"created": "2026-06-01T00:00:00.000Z", "modified": "2026-06-02T00:00:00.000Z"},
            "versions": {"1.0.0": {"dist": {"tarball": "http://x/a.tgz", "integrity": integrity}}}
        })
        .to_string();
        let r = Registry::Npm.read_release("@s/a", "http://x/@s%2fa", 200, &body).unwrap();
        assert_eq!(r.check_archive(bytes).unwrap(), sha256_hex(bytes));
        let e = r.check_archive(b"other").unwrap_err().to_string();
        assert!(e.contains("does not match the registry's SHA-512"), "{e}");
        assert_eq!(Registry::Npm.metadata_url("http://x/", "@s/a"), "http://x/@s%2fa");

        let body = serde_json::json!({
            "crate": {"created_at": "2026-06-01T00:00:00+00:00", "newest_version": "0.1.0"},
            "versions": [{"num": "0.1.0", "dl_path": "/api/v1/crates/c/0.1.0/download", "checksum": sha256_hex(bytes)}]
        })
        .to_string();
        let r =
            Registry::Crates.read_release("c", "http://x:1/api/v1/crates/c", 200, &body).unwrap();
        assert_eq!(r.archive_url, "http://x:1/api/v1/crates/c/0.1.0/download");
        assert!(r.check_archive(bytes).is_ok());
    }
}
