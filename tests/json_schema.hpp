// A JSON Schema (draft 2020-12) checker for the keywords docs/results.schema.json uses: $ref (to
// "#/$defs/NAME"), type (a name or a list of them), enum, const, minimum, required, properties,
// additionalProperties (true, false or a schema), items, anyOf. A schema keyword outside that list is itself
// an error, so the schema cannot use a keyword this checker would silently skip. For the tests.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ciosim::testing {

namespace schema_detail {

inline bool has_type(const nlohmann::json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "integer") return v.is_number_integer();
  if (t == "number") return v.is_number();
  return false;
}

inline void check(const nlohmann::json& root, const nlohmann::json& s, const nlohmann::json& v,
                  const std::string& at, std::vector<std::string>& errors) {
  const auto fail = [&](const std::string& why) { errors.push_back(at + ": " + why); };
  for (const auto& [key, value] : s.items()) {
    if (key == "$schema" || key == "title" || key == "description" || key == "$defs") continue;
    if (key == "$ref") {
      const std::string ref = value.get<std::string>();
      if (ref.rfind("#/$defs/", 0) != 0) return fail("unsupported $ref " + ref);
      check(root, root.at("$defs").at(ref.substr(8)), v, at, errors);
    } else if (key == "type") {
      bool ok = false;
      for (const auto& t : value.is_array() ? value : nlohmann::json::array({value}))
        ok = ok || has_type(v, t.get<std::string>());
      if (!ok) fail("is " + std::string(v.type_name()) + ", not " + value.dump());
    } else if (key == "enum") {
      if (std::find(value.begin(), value.end(), v) == value.end())
        fail(v.dump() + " is not one of " + value.dump());
    } else if (key == "const") {
      if (v != value) fail(v.dump() + " is not " + value.dump());
    } else if (key == "minimum") {
      if (v.is_number() && v.get<double>() < value.get<double>()) fail(v.dump() + " < " + value.dump());
    } else if (key == "required") {
      if (v.is_object())
        for (const auto& k : value)
          if (!v.contains(k.get<std::string>())) fail("has no \"" + k.get<std::string>() + "\"");
    } else if (key == "properties" || key == "additionalProperties") {
      if (!v.is_object() || key == "additionalProperties") continue;  // both handled below
    } else if (key == "items") {
      if (v.is_array())
        for (std::size_t i = 0; i < v.size(); ++i)
          check(root, value, v[i], at + "[" + std::to_string(i) + "]", errors);
    } else if (key == "anyOf") {
      bool ok = false;
      for (const auto& alt : value) {
        std::vector<std::string> mine;
        check(root, alt, v, at, mine);
        ok = ok || mine.empty();
      }
      if (!ok) fail("matches none of anyOf " + value.dump());
    } else {
      fail("the schema uses \"" + key + "\", which this checker does not know");
    }
  }
  if (!v.is_object() || !(s.contains("properties") || s.contains("additionalProperties"))) return;
  for (const auto& [k, x] : v.items()) {
    const std::string here = at + "." + k;
    if (s.contains("properties") && s.at("properties").contains(k)) {
      check(root, s.at("properties").at(k), x, here, errors);
    } else if (s.contains("additionalProperties")) {
      const nlohmann::json& extra = s.at("additionalProperties");
      if (extra.is_boolean()) {
        if (!extra.get<bool>()) errors.push_back(here + ": a key the schema does not list");
      } else {
        check(root, extra, x, here, errors);
      }
    }
  }
}

}  // namespace schema_detail

/// Every way `value` breaks `schema` ("$.runs[0].phases[2].time_s: is string, not \"number\""); empty when it
/// conforms.
inline std::vector<std::string> schema_errors(const nlohmann::json& schema, const nlohmann::json& value) {
  std::vector<std::string> errors;
  schema_detail::check(schema, schema, value, "$", errors);
  return errors;
}

}  // namespace ciosim::testing
