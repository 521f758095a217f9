#pragma once

// A real etcd-server (Debian's etcd-server, which install-deps installs) for one test, on free ports in a
// scratch directory; its output goes to a log there.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "etcd/etcd_client.h"
#include "tests/unit/multiplexer/multiplexer_test_cluster.h"

namespace shoal::etcd::testing {

/// An etcd-server process of its own for one test.
class EtcdServer {
 public:
  EtcdServer() { start(); }
  /// Starts the server (again, after stop(keepData = true), on the same ports and data).
  void start() {
    if (ports_.empty()) ports_ = multiplexer::testing::freePorts(2);
    auto& ports = ports_;
    static int servers = 0;
    if (directory_.empty()) {
      directory_ = std::filesystem::temp_directory_path() /
                   ("shoal-etcd-test-" + std::to_string(getpid()) + "-" + std::to_string(servers++));
      std::filesystem::remove_all(directory_);
      std::filesystem::create_directories(directory_);
    }
    endpoint_ = "127.0.0.1:" + std::to_string(ports[0]);
    const std::string client = "http://" + endpoint_;
    const std::string peer = "http://127.0.0.1:" + std::to_string(ports[1]);
    pid_ = fork();
    if (pid_ == 0) {
      const std::string log = (directory_ / "etcd.log").string();
      // The server's output goes to its log, never to the test's own pipes (which it would keep open).
      if (freopen(log.c_str(), "w", stderr) == nullptr || freopen("/dev/null", "w", stdout) == nullptr) _exit(126);
      execlp("etcd", "etcd", "--data-dir", (directory_ / "data").c_str(), "--listen-client-urls", client.c_str(),
             "--advertise-client-urls", client.c_str(), "--listen-peer-urls", peer.c_str(),
             "--initial-advertise-peer-urls", peer.c_str(), "--initial-cluster", ("default=" + peer).c_str(),
             static_cast<char*>(nullptr));
      _exit(127);
    }
    EtcdClient probe(endpoint_, std::chrono::milliseconds(500));
    for (int i = 0; i < 40; ++i) {
      try {
        probe.getPrefix("/");
        return;
      } catch (const ShoalError&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    stop();  // the destructor does not run when the constructor throws
    throw std::runtime_error("etcd did not start");
  }
  ~EtcdServer() { stop(); }
  /// Kills the server; its data stays for a later start() when `keepData`.
  void stop(bool keepData = false) {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    if (!keepData && !directory_.empty()) {
      std::filesystem::remove_all(directory_);
      directory_.clear();
    }
  }
  const std::string& endpoint() const { return endpoint_; }

 private:
  std::vector<uint16_t> ports_;
  std::filesystem::path directory_;
  std::string endpoint_;
  pid_t pid_ = -1;
};

}  // namespace shoal::etcd::testing
