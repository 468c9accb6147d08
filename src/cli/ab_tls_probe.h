// ab's TLS report lines need facts hail's engine does not keep (the server key's size, the key
// exchange group): one extra handshake with the target after the run supplies them. Owner: cli.
// Main thread; blocking, bounded by a few seconds.
#pragma once

#include <string>

#include "load/run_options.h"
#include "stats/run_result.h"

namespace hail {

struct AbTlsFacts {
  std::string protocol;  // "TLSv1.3,TLS_AES_256_GCM_SHA384,2048,256": version, cipher, bits
  std::string temp_key;  // "X25519 253 bits", "ECDH prime256v1 256 bits"; empty: none
};

// A handshake with the run's target (its --connect-to address, SNI, versions and ciphers). When it
// fails, the version and cipher the run negotiated, with 0 for the unknown key sizes.
AbTlsFacts probe_ab_tls_facts(const RunOptions& run, const RunResult& result);

}  // namespace hail
