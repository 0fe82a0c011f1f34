// Unit tests of TLS over non-blocking sockets (util/tls.h): a server and a client
// TlsStream on the two ends of a socketpair, with a key and a self-signed
// certificate made in memory and written to a temp dir. No network, no MariaDB.
#include "util/tls.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace rowsocket {
namespace {

// cert.pem and key.pem (RSA 2048, CN=127.0.0.1) in a fresh temp dir.
std::string MakeCertificate() {
  char dir_template[] = "/tmp/rowsocket-tls-unit-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  EVP_PKEY* key = EVP_RSA_gen(2048);
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_sign(cert, key, EVP_sha256());
  FILE* f = std::fopen((dir + "/cert.pem").c_str(), "w");
  PEM_write_X509(f, cert);
  std::fclose(f);
  f = std::fopen((dir + "/key.pem").c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
  X509_free(cert);
  EVP_PKEY_free(key);
  return dir;
}

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dir_ = new std::string(MakeCertificate()); }
  static void TearDownTestSuite() {
    std::system(("rm -rf " + *dir_).c_str());
    delete dir_;
  }

  void SetUp() override {
    std::string error;
    server_context_ = TlsContext::ForServer(*dir_ + "/cert.pem", *dir_ + "/key.pem", "", &error);
    ASSERT_TRUE(server_context_) << error;
    client_context_ = TlsContext::ForClient(*dir_ + "/cert.pem", false, &error);
    ASSERT_TRUE(client_context_) << error;
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    server_fd_ = fds[0];
    client_fd_ = fds[1];
    server_ = std::make_unique<TlsStream>(*server_context_, server_fd_, true);
    client_ = std::make_unique<TlsStream>(*client_context_, client_fd_, false, "127.0.0.1");
  }
  void TearDown() override {
    server_.reset();
    client_.reset();
    ::close(server_fd_);
    ::close(client_fd_);
  }

  // Both handshakes, alternating, as two event loops would.
  bool Handshake() {
    for (int i = 0; i < 20; ++i) {
      const TlsIo c = client_->Handshake();
      const TlsIo s = server_->Handshake();
      if (c == TlsIo::kDone && s == TlsIo::kDone) return true;
      if (c == TlsIo::kError || s == TlsIo::kError || c == TlsIo::kClosed || s == TlsIo::kClosed)
        return false;
    }
    return false;
  }

  static std::string* dir_;
  std::unique_ptr<TlsContext> server_context_, client_context_;
  int server_fd_ = -1, client_fd_ = -1;
  std::unique_ptr<TlsStream> server_, client_;
};

std::string* TlsTest::dir_ = nullptr;

TEST_F(TlsTest, handshake_completes_and_bytes_pass_both_ways) {
  ASSERT_TRUE(Handshake());
  EXPECT_NE(std::string(server_->version()), "");
  size_t n = 0;
  ASSERT_EQ(client_->Write("0\t=\t1\t5\n", 8, &n), TlsIo::kDone);
  EXPECT_EQ(n, 8u);
  char buffer[64];
  ASSERT_EQ(server_->Read(buffer, sizeof buffer, &n), TlsIo::kDone);
  EXPECT_EQ(std::string(buffer, n), "0\t=\t1\t5\n");
  EXPECT_EQ(server_->Read(buffer, sizeof buffer, &n), TlsIo::kWantRead);  // drained
}

TEST_F(TlsTest, a_full_socket_takes_part_and_the_rest_follows_from_a_moved_buffer) {
  ASSERT_TRUE(Handshake());
  std::string out(1 << 20, '\0');
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>('a' + i % 26);
  std::string received;
  size_t sent = 0;
  bool waited = false;
  char buffer[65536];
  for (int round = 0; received.size() < out.size() && round < 100000; ++round) {
    if (sent < out.size()) {
      const std::string moved = out;  // a retry passes the same bytes from elsewhere
      size_t n = 0;
      const TlsIo io = server_->Write(moved.data() + sent, moved.size() - sent, &n);
      if (io == TlsIo::kDone) {
        sent += n;
      } else {
        ASSERT_EQ(io, TlsIo::kWantWrite);
        waited = true;
      }
    }
    if (sent < out.size() && !waited) continue;  // fill the socket first
    size_t n = 0;
    while (client_->Read(buffer, sizeof buffer, &n) == TlsIo::kDone) received.append(buffer, n);
  }
  EXPECT_TRUE(waited);
  EXPECT_EQ(received, out);
}

TEST_F(TlsTest, close_notify_reads_as_closed) {
  ASSERT_TRUE(Handshake());
  server_->Shutdown();
  char buffer[16];
  size_t n = 0;
  EXPECT_EQ(client_->Read(buffer, sizeof buffer, &n), TlsIo::kClosed);
}

TEST_F(TlsTest, garbage_instead_of_a_handshake_is_an_error) {
  ASSERT_EQ(::write(client_fd_, "\x16\x03\x01\x00\x05hello", 10), 10);
  EXPECT_EQ(server_->Handshake(), TlsIo::kError);
  EXPECT_FALSE(server_->error().empty());
}

TEST_F(TlsTest, a_client_that_does_not_trust_the_certificate_fails_its_handshake) {
  std::string error;
  auto strict = TlsContext::ForClient("", /*verify_host=*/true, &error);  // the system's CAs
  ASSERT_TRUE(strict) << error;
  client_ = std::make_unique<TlsStream>(*strict, client_fd_, false, "127.0.0.1");
  EXPECT_FALSE(Handshake());
  EXPECT_NE(client_->error().find("certificate verify failed"), std::string::npos)
      << client_->error();
}

}  // namespace
}  // namespace rowsocket
