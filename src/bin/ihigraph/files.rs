//! Files the commands write (`report --out`, `convert --output`, `backup FILE`): written
//! beside their target and moved into place, so that the target is never half-written,
//! with the mode the user's settings give: the umask's for a new file, the old file's
//! for one replaced (a 0600 file stays 0600).

use anyhow::{Context, Result};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// A file being written beside its target; dropped before [`commit`](Self::commit), it
/// is removed and the target left as it was.
pub struct NewFile {
    file: NamedTempFile,
    target: PathBuf,
}

impl NewFile {
    /// Starts writing `target`.
    pub fn create(target: &Path) -> Result<Self> {
        let directory = target
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut builder = tempfile::Builder::new();
        builder.prefix(".ihigraph-").suffix(".partial");
        // A temporary file is made for its owner alone (0600); the one that becomes a
        // new file gets what `File::create` would give it: 0666 less the umask.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let file = builder
            .tempfile_in(directory)
            .with_context(|| format!("cannot write into {}", directory.display()))?;
        Ok(Self {
            file,
            target: target.to_owned(),
        })
    }

    /// The file, to write to.
    pub fn file(&mut self) -> &mut File {
        self.file.as_file_mut()
    }

    /// Moves the file into place, replacing the target: an existing target's mode
    /// carries over.
    pub fn commit(self) -> Result<()> {
        if let Ok(old) = std::fs::metadata(&self.target) {
            // The permission bits alone: not set-user-ID or set-group-ID, which would
            // make what this program wrote run as the old file's owner.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = old.permissions().mode() & 0o777;
                self.file
                    .as_file()
                    .set_permissions(std::fs::Permissions::from_mode(mode))
                    .with_context(|| format!("cannot write {}", self.target.display()))?;
            }
            #[cfg(not(unix))]
            let _ = old;
        }
        self.file
            .persist(&self.target)
            .with_context(|| format!("cannot write {}", self.target.display()))?;
        Ok(())
    }

    /// Moves the file into place where no file is: an existing target is refused.
    pub fn commit_new(self) -> Result<()> {
        self.file
            .as_file()
            .sync_all()
            .with_context(|| format!("cannot write {}", self.target.display()))?;
        self.file
            .persist_noclobber(&self.target)
            .with_context(|| format!("cannot create {}", self.target.display()))?;
        Ok(())
    }
}

impl Write for NewFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.file.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}
