#include "util/digest.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>

#include "util/hex.h"

namespace ddb::util {
namespace {

TEST(Digest, Sha256KnownAnswers) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256("abc").size(), 32u);
  EXPECT_EQ(Hex(Sha256("abc")), Sha256Hex("abc"));
}

TEST(Digest, HmacSha256Rfc4231) {
  // RFC 4231, test cases 1 and 2.
  EXPECT_EQ(HmacSha256Hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(HmacSha256("Jefe", "what do ya want for nothing?").size(), 32u);
  // Re-keyed per call: the previous key leaves nothing behind.
  EXPECT_EQ(HmacSha256Hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(Digest, Md5KnownAnswers) {
  EXPECT_EQ(Md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5("abc").size(), 16u);
}

TEST(Digest, Md5Of2IsTheMd5OfTheConcatenation) {
  for (const auto& [a, b] : {std::pair<std::string, std::string>{"", ""},
                             {"Outliers", "k"},
                             {std::string(70, 'x'), std::string(200, 'y')}}) {
    unsigned char out[16];
    Md5Of2(a, b, out);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(out), 16), Md5(a + b)) << a << b;
  }
}

TEST(Digest, EachThreadHasItsOwnContexts) {
  std::string a, b;
  std::thread t1([&] {
    for (int i = 0; i < 1000; ++i) a = HmacSha256Hex("k1", Sha256("x"));
  });
  std::thread t2([&] {
    for (int i = 0; i < 1000; ++i) b = HmacSha256Hex("k1", Sha256("x"));
  });
  t1.join();
  t2.join();
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, HmacSha256Hex("k1", Sha256("x")));
}

}  // namespace
}  // namespace ddb::util
