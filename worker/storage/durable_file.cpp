#include "worker/storage/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/status.h"

namespace shoal::worker {

void syncDirectory(const std::filesystem::path& directory) {
  int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not open {}: {}", directory.string(), strerror(errno));
  int result = ::fsync(fd);
  int error = errno;
  ::close(fd);
  if (result != 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not fsync {}: {}", directory.string(), strerror(error));
}

void replaceFileDurably(const std::filesystem::path& path, std::string_view contents) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not create {}: {}", temporary.string(), strerror(errno));
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = errno;
      ::close(fd);
      SHOAL_USER_FAIL(SqlState::kIoError, "could not write {}: {}", temporary.string(), strerror(error));
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int error = errno;
    ::close(fd);
    SHOAL_USER_FAIL(SqlState::kIoError, "could not fsync {}: {}", temporary.string(), strerror(error));
  }
  ::close(fd);
  std::filesystem::rename(temporary, path);
  syncDirectory(path.parent_path());
}

}  // namespace shoal::worker
