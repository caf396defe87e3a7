#include "config/network_file.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "config/profile_values.hpp"

namespace ciosim::config {

namespace {

struct Number {
  const char* key;
  double min;
  bool above;  ///< strictly greater than min
  double NetworkProfile::*field;
};

const Number kNumbers[] = {
    {"link_bandwidth_Bps", 0, true, &NetworkProfile::link_bandwidth_Bps},
    {"link_latency_s", 0, false, &NetworkProfile::link_latency_s},
    {"send_overhead_s", 0, false, &NetworkProfile::send_overhead_s},
    {"recv_overhead_s", 0, false, &NetworkProfile::recv_overhead_s},
};

std::string valid_keys() {
  std::string s = "description, source";
  for (const auto& n : kNumbers) s += std::string(", ") + n.key;
  return s + ", eager_threshold, size_factors, and any key ending in _source";
}

bool is_source(const std::string& k) {
  return k.size() > 7 && k.ends_with("_source");
}

double number(const toml::node& n, const std::string& what) {
  if (!n.is_number()) throw ConfigError(what + " must be a number, got " + toml_type(n));
  return n.is_integer() ? static_cast<double>(*n.value<std::int64_t>()) : *n.value<double>();
}

std::vector<SizeFactor> size_factors(const toml::node& n, const std::string& what) {
  const auto* arr = n.as_array();
  if (!arr) throw ConfigError(what + " must be an array of [min_bytes, factor] pairs, got " + toml_type(n));
  std::vector<SizeFactor> out;
  for (const auto& e : *arr) {
    const auto* pair = e.as_array();
    if (!pair || pair->size() != 2 || !(*pair)[0].is_integer() || !(*pair)[1].is_number())
      throw ConfigError(what + ": every entry must be [min_bytes (integer), factor (number)]");
    const std::int64_t min = *(*pair)[0].value<std::int64_t>();
    const double f = number((*pair)[1], what);
    if (min < 0 || !(f > 0 && f <= 1))
      throw ConfigError(what + ": min_bytes must be >= 0 and the factor in (0, 1], got [" +
                        std::to_string(min) + ", " + format_double(f) + "]");
    if (!out.empty() && min <= out.back().min_bytes)
      throw ConfigError(what + ": the entries must be in increasing order of min_bytes, each once (got " +
                        std::to_string(min) + " after " + std::to_string(out.back().min_bytes) + ")");
    out.push_back(SizeFactor{min, f});
  }
  return out;
}

NetworkProfile parse_one(const std::string& name, const toml::table& t, const std::string& origin,
                         std::vector<std::pair<std::string, std::string>>& sources) {
  NetworkProfile p;
  p.name = name;
  p.size_factors = {{0, 1.0}};
  std::set<std::string> seen;
  const std::string table = "network.profiles." + name;
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    const std::string where = at(origin, v) + table + "." + key;
    if (is_source(key)) {
      if (!v.is_string()) throw ConfigError(where + " (documentation of a value's source) must be a string");
      sources.emplace_back(table + "." + key, *v.value<std::string>());
    } else if (key == "description" || key == "source") {
      if (!v.is_string()) throw ConfigError(where + " must be a string, got " + toml_type(v));
      (key == "description" ? p.description : p.source) = *v.value<std::string>();
    } else if (key == "eager_threshold") {
      if (!v.is_integer() || *v.value<std::int64_t>() < 0)
        throw ConfigError(where + " must be an integer >= 0 (bytes), got " + toml_type(v));
      p.eager_threshold = *v.value<std::int64_t>();
      seen.insert(key);
    } else if (key == "size_factors") {
      p.size_factors = size_factors(v, where);
    } else {
      const Number* num = nullptr;
      for (const auto& n : kNumbers)
        if (key == n.key) num = &n;
      if (!num)
        throw ConfigError(at(origin, v) + "unknown key " + table + "." + key +
                          "; valid keys: " + valid_keys());
      const double x = number(v, where);
      if (!std::isfinite(x) || (num->above ? !(x > num->min) : !(x >= num->min)))
        throw ConfigError(where + " must be " + (num->above ? "> 0" : ">= 0") + ", got " + format_double(x));
      if (const ProfileValue* pv = find_profile_value(key)) {
        const PhysicalRange r = physical_range(*pv);
        if (x < r.lo || x > r.hi)
          throw ConfigError(where + " = " + format_double(x) +
                            " is outside the physically meaningful range [" + format_double(r.lo) + ", " +
                            format_double(r.hi) + "] (" + pv->unit + ": " + r.why + ")");
      }
      p.*(num->field) = x;
      seen.insert(key);
    }
  }
  std::vector<std::string> missing;
  for (const auto& n : kNumbers)
    if (!seen.count(n.key)) missing.push_back(table + "." + n.key);
  if (!seen.count("eager_threshold")) missing.push_back(table + ".eager_threshold");
  if (!missing.empty()) throw ConfigError(origin + ": missing required key(s) " + join(missing));
  return p;
}

}  // namespace

std::vector<NetworkProfile> parse_network_profiles(
    const toml::node& profiles, const std::string& origin,
    std::vector<std::pair<std::string, std::string>>& sources) {
  const auto* t = profiles.as_table();
  if (!t)
    throw ConfigError(at(origin, profiles) +
                      "network.profiles must be a table of [network.profiles.NAME] tables, got " +
                      toml_type(profiles));
  std::vector<NetworkProfile> out;
  for (auto&& [k, v] : *t) {
    const std::string name(k.str());
    if (!v.is_table())
      throw ConfigError(at(origin, v) + "network.profiles." + name +
                        " must be a table (a network profile), got " + toml_type(v));
    for (const auto& b : network_profiles())
      if (b.name == name)
        throw ConfigError(at(origin, v) + "network.profiles." + name +
                          " has the name of a built-in profile; choose another name");
    out.push_back(parse_one(name, *v.as_table(), origin, sources));
  }
  return out;
}

std::string network_profiles_toml(const std::vector<NetworkProfile>& profiles, const std::string& prefix,
                                  const std::vector<std::pair<std::string, std::string>>& sources) {
  std::ostringstream out;
  for (const auto& p : profiles) {
    const std::string table = "network.profiles." + p.name;
    const auto source_of = [&](const std::string& key) {
      for (const auto& [k, v] : sources)
        if (k == table + "." + key + "_source") return v;
      return std::string();
    };
    const auto line = [&](const std::string& key, const std::string& value) {
      out << key << " = " << value << "\n";
      if (const std::string s = source_of(key); !s.empty()) out << key << "_source = " << quote(s) << "\n";
    };
    out << "\n[" << prefix << "." << toml_key(p.name) << "]\n";
    out << "description = " << quote(p.description) << "\n";
    out << "source = " << quote(p.source) << "\n";
    for (const auto& n : kNumbers) line(n.key, toml_double(p.*(n.field)));
    line("eager_threshold", std::to_string(p.eager_threshold));
    std::string sf = "[";
    for (const auto& f : p.size_factors)
      sf += (sf.size() > 1 ? ", " : "") + std::string("[") + std::to_string(f.min_bytes) + ", " +
            toml_double(f.bandwidth_factor) + "]";
    line("size_factors", sf + "]");
  }
  return out.str();
}

nlohmann::ordered_json network_profiles_json(
    const std::vector<NetworkProfile>& profiles,
    const std::vector<std::pair<std::string, std::string>>& sources) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& p : profiles) {
    nlohmann::ordered_json o;
    o["description"] = p.description;
    o["source"] = p.source;
    for (const auto& n : kNumbers) o[n.key] = p.*(n.field);
    o["eager_threshold"] = p.eager_threshold;
    o["size_factors"] = nlohmann::ordered_json::array();
    for (const auto& f : p.size_factors) o["size_factors"].push_back({f.min_bytes, f.bandwidth_factor});
    const std::string prefix = "network.profiles." + p.name + ".";
    for (const auto& [k, v] : sources)
      if (k.starts_with(prefix)) o[k.substr(prefix.size())] = v;
    j[p.name] = std::move(o);
  }
  return j;
}

}  // namespace ciosim::config
