// ResultLine and ResultJson: the same numbers in two shapes. Field names are the
// contract with bench/compare (which reads the JSON) and with anyone grepping RESULT
// lines; add fields freely, rename none.
#include "report.h"

#include <cstdio>
#include <vector>
#include <utility>

namespace bench {

namespace {

struct Field {
  std::string name;
  std::string value;
  bool quoted;
};

std::string Num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::vector<Field> Fields(const Options& o, const Result& r) {
  const double w = r.window_s > 0 ? r.window_s : 1;
  const double per_op = r.ops ? 1e6 / double(r.ops) : 0;
  std::vector<Field> f = {
      {"target", TargetName(o.target), true},
      {"label", o.label, true},
      {"workload", WorkloadName(o.workload), true},
      {"dist", DistributionName(o.dist), true},
      {"conns", std::to_string(o.conns), false},
      {"threads", std::to_string(o.threads), false},
      {"depth", std::to_string(o.depth), false},
      {"batch", std::to_string(o.batch), false},
      {"keys", std::to_string(o.keys), false},
      {"rows", std::to_string(o.rows), false},
      {"kv", o.kv ? "1" : "0", false},
      {"window_s", Num(r.window_s, 3), false},
      {"qps", Num(double(r.ops) / w, 0), false},
      {"rps", Num(double(r.requests) / w, 0), false},
      {"p50_us", Num(r.latency.Quantile(0.50) / 1e3, 1), false},
      {"p99_us", Num(r.latency.Quantile(0.99) / 1e3, 1), false},
      {"p999_us", Num(r.latency.Quantile(0.999) / 1e3, 1), false},
      {"max_us", Num(double(r.latency.Max()) / 1e3, 1), false},
      {"mean_us", Num(r.latency.Mean() / 1e3, 1), false},
      {"errors", std::to_string(r.errors), false},
      {"errors_total", std::to_string(r.errors_total), false},
      {"ops_total", std::to_string(r.ops_total), false},
      {"server_us_per_op", r.server_cpu_s < 0 ? "-1" : Num(r.server_cpu_s * per_op, 2), false},
      {"server_cpu_pct", r.server_cpu_s < 0 ? "-1" : Num(100 * r.server_cpu_s / w, 1), false},
      {"client_us_per_op", Num(r.client_cpu_s * per_op, 2), false},
      {"client_cpu_pct", Num(100 * r.client_cpu_s / w, 1), false},
      {"other_cpu_pct", Num(100 * r.other_cpu_s / w, 1), false},
      {"cpus", std::to_string(r.cpus), false},
      {"load1", Num(r.load1, 2), false},
      {"exhausted", r.exhausted ? "1" : "0", false},
  };
  if (o.workload == Workload::kInsert || o.workload == Workload::kDelete) {
    f.push_back({"key_base", std::to_string(o.key_base), false});
    f.push_back({"next_key", std::to_string(r.next_key), false});
  }
  return f;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(char(c));
    } else if (c < 0x20 || c >= 0x80) {  // bytes from a server may not be UTF-8
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(char(c));
    }
  }
  return out + "\"";
}

}  // namespace

std::string ResultLine(const Options& o, const Result& r) {
  std::string line = "RESULT";
  for (const Field& f : Fields(o, r)) {
    if (f.name == "label" && f.value.empty()) continue;
    std::string v = f.value;
    for (char& c : v) if (c == ' ' || c == '\t' || c == '\n') c = '_';
    line += " " + f.name + "=" + v;
  }
  return line;
}

std::string ResultJson(const Options& o, const Result& r) {
  std::string out = "{";
  bool first = true;
  for (const Field& f : Fields(o, r)) {
    if (!first) out += ", ";
    first = false;
    out += JsonString(f.name) + ": " + (f.quoted ? JsonString(f.value) : f.value);
  }
  out += ", \"first_error\": " + JsonString(r.first_error) + "}";
  return out;
}

}  // namespace bench
