#include "coordinator/catalog/catalog_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "common/status.h"

namespace shoal::coordinator {

std::optional<nlohmann::json> FileCatalogStore::load() {
  if (!std::filesystem::exists(file_)) return std::nullopt;
  std::ifstream in(file_);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& error) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "{} is corrupted: {}", describe(), error.what());
  }
}

void FileCatalogStore::save(const nlohmann::json& document) {
  std::string text = document.dump(1);
  std::filesystem::path temporary = file_;
  temporary += ".tmp";
  // Owner-only: the catalog holds the roles' password verifiers, which a reader could attack offline.
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) ::fchmod(fd, 0600);  // an old .tmp left with another mode keeps it otherwise
  if (fd < 0) {
    SHOAL_USER_FAIL(SqlState::kIoError, "could not write catalog file {}: {}", temporary.string(), strerror(errno));
  }
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = errno;
      ::close(fd);
      SHOAL_USER_FAIL(SqlState::kIoError, "could not write catalog file {}: {}", temporary.string(), strerror(error));
    }
    written += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  std::filesystem::rename(temporary, file_);
}

}  // namespace shoal::coordinator
