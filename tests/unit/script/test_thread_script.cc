#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "script/script.h"
#include "script_test_util.h"

namespace hail {
namespace {

using script_test::local_target;
using script_test::parse_request;
using script_test::script_path;
using script_test::TempScript;
using script_test::url_args;

std::unique_ptr<ThreadScript> ready(const std::string& path,
                                    const ScriptTarget& target = local_target(),
                                    const std::vector<std::string>& args = url_args()) {
  auto loaded = ThreadScript::load(path, target);
  EXPECT_TRUE(loaded.ok()) << loaded.error().message;
  if (!loaded.ok()) return nullptr;
  std::unique_ptr<ThreadScript> script = std::move(loaded).value();
  Status initialised = script->init(args);
  EXPECT_TRUE(initialised.ok()) << initialised.error().message;
  return script;
}

std::string next_request(ThreadScript& script) {
  auto bytes = script.request();
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes.ok() ? std::string(*bytes) : std::string();
}

TEST(ThreadScript, NoScriptIsWrksPlainStaticRequest) {
  auto script = ready("");
  ASSERT_NE(script, nullptr);
  EXPECT_TRUE(script->is_static());
  EXPECT_FALSE(script->wants_response());
  EXPECT_FALSE(script->has_delay());
  EXPECT_EQ(next_request(*script), "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
  EXPECT_EQ(script->tag(), "");
}

TEST(ThreadScript, StaticRequestIsRenderedOnceAndKept) {
  auto script = ready(script_path("post_form.lua"));
  ASSERT_NE(script, nullptr);
  auto first = script->request();
  auto second = script->request();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->data(), second->data());  // the same bytes, not a re-rendering
}

TEST(ThreadScript, TargetFillsTheWrkTable) {
  TempScript file(R"(
function request()
  local h = wrk.headers
  return table.concat({ wrk.scheme, wrk.host, tostring(wrk.port), wrk.method, wrk.path,
                        tostring(wrk.body), h["X-One"], h["X-Two"], tostring(wrk.thread ~= nil),
                        tostring(require("wrk") == wrk) }, "|")
end)");
  ScriptTarget target = local_target();
  target.port = "";
  target.path = "/search?q=1";
  target.method = "PUT";
  target.headers = {{"X-One", "1"}, {"X-Two", "first"}, {"X-Two", "second"}};
  auto script = ready(file.path(), target);
  ASSERT_NE(script, nullptr);
  EXPECT_FALSE(script->is_static());
  EXPECT_EQ(next_request(*script), "http|127.0.0.1|nil|PUT|/search?q=1|nil|1|second|true|true");
}

TEST(ThreadScript, HostHeaderDefaultsLikeWrk) {
  ScriptTarget v6 = local_target();
  v6.host = "::1";
  auto script = ready("", v6);
  ASSERT_NE(script, nullptr);
  EXPECT_EQ(parse_request(next_request(*script)).headers["Host"],
            std::vector<std::string>{"[::1]:8080"});

  ScriptTarget no_port = local_target();
  no_port.host = "example.test";
  no_port.port = "";
  script = ready("", no_port);
  ASSERT_NE(script, nullptr);
  EXPECT_EQ(parse_request(next_request(*script)).headers["Host"],
            std::vector<std::string>{"example.test"});

  ScriptTarget given = local_target();
  given.headers = {{"Host", "virtual.test"}};
  script = ready("", given);
  ASSERT_NE(script, nullptr);
  EXPECT_EQ(parse_request(next_request(*script)).headers["Host"],
            std::vector<std::string>{"virtual.test"});

  // wrk compares names exactly: a lower-case host is one more header, not a replacement.
  ScriptTarget lower = local_target();
  lower.headers = {{"host", "virtual.test"}};
  script = ready("", lower);
  ASSERT_NE(script, nullptr);
  const auto parsed = parse_request(next_request(*script));
  EXPECT_EQ(parsed.headers.at("Host"), std::vector<std::string>{"127.0.0.1:8080"});
  EXPECT_EQ(parsed.headers.at("host"), std::vector<std::string>{"virtual.test"});
}

// wrk.format's rules, one case per init argument.
constexpr const char* kFormatCases = R"(
function init(args)
  case = args[1]
end

function request()
  if case == "defaults" then
    return wrk.format()
  elseif case == "explicit" then
    return wrk.format("PUT", "/put", { ["X-B"] = "b" }, "abc")
  elseif case == "empty-body" then
    return wrk.format("POST", "/", nil, "")
  elseif case == "stale-length" then
    wrk.headers["Content-Length"] = "99"
    return wrk.format()
  elseif case == "mutates" then
    local mine = {}
    wrk.format(nil, nil, mine, "xy")
    return "GET /" .. mine["Host"] .. "/" .. mine["Content-Length"] .. " HTTP/1.1\r\n\r\n"
  elseif case == "number-header" then
    return wrk.format(nil, nil, { ["X-N"] = 7 })
  end
end)";

TEST(ThreadScript, FormatFollowsWrk) {
  TempScript file(kFormatCases);
  auto run = [&](const std::string& name, ScriptTarget target = local_target()) {
    auto script = ready(file.path(), target, {"http://127.0.0.1:8080/", name});
    return script ? parse_request(next_request(*script)) : script_test::ParsedRequest{};
  };
  ScriptTarget with_body = local_target();
  with_body.body = "hello";
  with_body.method = "POST";
  auto request = run("defaults", with_body);
  EXPECT_EQ(request.request_line, "POST / HTTP/1.1");
  EXPECT_EQ(request.headers["Content-Length"], std::vector<std::string>{"5"});
  EXPECT_EQ(request.body, "hello");

  request = run("explicit");
  EXPECT_EQ(request.request_line, "PUT /put HTTP/1.1");
  EXPECT_EQ(request.headers["Host"], std::vector<std::string>{"127.0.0.1:8080"});
  EXPECT_EQ(request.headers["X-B"], std::vector<std::string>{"b"});
  EXPECT_EQ(request.headers["Content-Length"], std::vector<std::string>{"3"});
  EXPECT_EQ(request.body, "abc");
  EXPECT_EQ(request.headers.size(), 3u);

  request = run("empty-body");  // "" is a body in Lua: Content-Length: 0
  EXPECT_EQ(request.headers["Content-Length"], std::vector<std::string>{"0"});

  request = run("stale-length");  // no body: wrk.format removes a Content-Length header
  EXPECT_TRUE(request.complete);
  EXPECT_EQ(request.headers.count("Content-Length"), 0u);

  request = run("mutates");
  EXPECT_EQ(request.request_line, "GET /127.0.0.1:8080/2 HTTP/1.1");

  request = run("number-header");
  EXPECT_EQ(request.headers["X-N"], std::vector<std::string>{"7"});
}

TEST(ThreadScript, InitArgumentsUseWrksIndexing) {
  TempScript file(R"(
function init(args)
  seen = table.concat({ args[0], args[1], args[2], #args }, "|")
end
function request() return seen end)");
  auto script = ready(file.path(), local_target(), {"http://h/", "--flag", "value"});
  ASSERT_NE(script, nullptr);
  EXPECT_EQ(next_request(*script), "http://h/|--flag|value|2");
}

TEST(ThreadScript, TagsLabelTheRequestsOfTheirCall) {
  auto script = ready(script_path("tagged.lua"));
  ASSERT_NE(script, nullptr);
  EXPECT_EQ(script->tag(), "");
  EXPECT_EQ(parse_request(next_request(*script)).request_line, "POST /login HTTP/1.1");
  EXPECT_EQ(script->tag(), "login");
  EXPECT_EQ(parse_request(next_request(*script)).request_line, "GET /items/2 HTTP/1.1");
  EXPECT_EQ(script->tag(), "browse");
  EXPECT_EQ(parse_request(next_request(*script)).request_line, "GET /items/3 HTTP/1.1");
  EXPECT_EQ(script->tag(), "");
  next_request(*script);
  EXPECT_EQ(script->tag(), "login");
}

TEST(ThreadScript, TagInInitLabelsTheStaticRequest) {
  auto script = ready(script_path("static_tag.lua"));
  ASSERT_NE(script, nullptr);
  EXPECT_TRUE(script->is_static());
  EXPECT_EQ(script->tag(), "home");
  next_request(*script);
  EXPECT_EQ(script->tag(), "home");
  next_request(*script);
  EXPECT_EQ(script->tag(), "home");
}

TEST(ThreadScript, TagNamesAreCheckedAndTagsOutsideRequestsIgnored) {
  TempScript file(R"(
function init(args) name = args[1] end
function request()
  return hail.tag(name == "number" and 5 or name, "GET / HTTP/1.1\r\n\r\n")
end
function response() hail.tag("late") end)");
  const std::string longest(64, 'a');
  auto script = ready(file.path(), local_target(), {"u", longest});
  ASSERT_NE(script, nullptr);
  next_request(*script);
  EXPECT_EQ(script->tag(), longest);
  ASSERT_TRUE(script->response(200, nullptr, 0, "").ok());
  EXPECT_EQ(script->tag(), longest);  // a tag set in response() labels nothing

  for (const std::string& bad : {std::string(65, 'a'), std::string(), std::string("number")}) {
    script = ready(file.path(), local_target(), {"u", bad});
    ASSERT_NE(script, nullptr);
    auto result = script->request();
    ASSERT_FALSE(result.ok()) << bad;
    // `return hail.tag(...)` is a tail call: the position is the function's first line.
    EXPECT_EQ(result.error().message.rfind(file.path() + ":3: bad argument #1 to 'hail.tag'", 0),
              0u)
        << result.error().message;
  }
}

TEST(ThreadScript, HookPresenceIsReported) {
  TempScript file(R"(
function request() return wrk.format() end
function response() end
delay = function() return 1 end)");
  auto script = ready(file.path());
  ASSERT_NE(script, nullptr);
  EXPECT_FALSE(script->is_static());
  EXPECT_TRUE(script->wants_response());
  EXPECT_TRUE(script->has_delay());

  TempScript not_functions("request = 'GET / HTTP/1.1\\r\\n\\r\\n'\nresponse = 1\ndelay = {}\n");
  script = ready(not_functions.path());
  ASSERT_NE(script, nullptr);
  EXPECT_TRUE(script->is_static());
  EXPECT_FALSE(script->wants_response());
  EXPECT_FALSE(script->has_delay());
  EXPECT_TRUE(script->response(200, nullptr, 0, "").ok());
  EXPECT_EQ(script->delay_ms().value(), 0.0);
}

TEST(ThreadScript, ResponseGetsStatusHeadersAndBody) {
  TempScript file(R"(
got = "none"
function response(status, headers, body)
  got = table.concat({ status, headers["Content-Type"], headers["X-Dup"], tostring(headers["x-dup"]),
                       #body, body }, "|")
end
function request() return got end)");
  auto script = ready(file.path());
  ASSERT_NE(script, nullptr);
  const ScriptResponseHeader headers[] = {
      {"Content-Type", "text/plain"}, {"X-Dup", "one"}, {"X-Dup", "two"}};
  ASSERT_TRUE(script->response(404, headers, 3, std::string_view("a\0b", 3)).ok());
  EXPECT_EQ(next_request(*script), std::string("404|text/plain|two|nil|3|a") + '\0' + "b");
}

TEST(ThreadScript, DelayIsTheScriptsMilliseconds) {
  TempScript file(R"(
function init(args) value = args[1] end
function delay()
  if value == "nil" then return nil end
  if value == "inf" then return math.huge end
  if value == "nan" then return 0/0 end
  return tonumber(value) or value
end)");
  const std::vector<std::pair<std::string, double>> cases = {{"25", 25}, {"2.5", 2.5}, {"-3", 0},
                                                             {"nil", 0}, {"nan", 0},   {"text", 0}};
  for (const auto& [value, expected] : cases) {
    auto script = ready(file.path(), local_target(), {"u", value});
    ASSERT_NE(script, nullptr);
    ASSERT_TRUE(script->has_delay());
    auto delay = script->delay_ms();
    ASSERT_TRUE(delay.ok()) << delay.error().message;
    EXPECT_EQ(*delay, expected) << value;
  }
  auto script = ready(file.path(), local_target(), {"u", "inf"});
  ASSERT_NE(script, nullptr);
  EXPECT_FALSE(script->delay_ms().ok());
}

TEST(ThreadScript, SyntaxErrorNamesFileAndLine) {
  auto loaded = ThreadScript::load(script_path("syntax_error.lua"), local_target());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message.rfind(script_path("syntax_error.lua") + ":3: ", 0), 0u)
      << loaded.error().message;
}

TEST(ThreadScript, MissingFileIsAnError) {
  auto loaded = ThreadScript::load("/nonexistent/script.lua", local_target());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("/nonexistent/script.lua"), std::string::npos);
}

TEST(ThreadScript, RuntimeErrorsNameFileAndLine) {
  const std::string path = script_path("errors.lua");
  auto script = ready(path);
  ASSERT_NE(script, nullptr);
  auto request = script->request();
  ASSERT_FALSE(request.ok());
  EXPECT_EQ(request.error().message.rfind(path + ":4: ", 0), 0u) << request.error().message;
  EXPECT_NE(request.error().message.find("undefined_function"), std::string::npos);

  Status response = script->response(503, nullptr, 0, "");
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().message, path + ":8: bad status 503");

  auto delay = script->delay_ms();  // error(msg, 0) has no position: the frame's is added
  ASSERT_FALSE(delay.ok());
  EXPECT_EQ(delay.error().message, path + ":12: raised without a position");

  auto loaded = ThreadScript::load(path, local_target());
  ASSERT_TRUE(loaded.ok());
  Status init = (*loaded)->init({"u", "fail"});
  ASSERT_FALSE(init.ok());
  EXPECT_EQ(init.error().message.rfind(path + ":17: bad argument #1 to 'hail.tag'", 0), 0u)
      << init.error().message;
}

TEST(ThreadScript, ErrorsInsideWrkFunctionsPointBackAtTheScript) {
  TempScript file("function request()\n  return wrk.format(nil, nil, nil, {})\nend\n");
  auto script = ready(file.path());
  ASSERT_NE(script, nullptr);
  auto request = script->request();
  ASSERT_FALSE(request.ok());
  EXPECT_NE(request.error().message.find("bad argument #1 to 'len'"), std::string::npos)
      << request.error().message;
  EXPECT_NE(
      request.error().message.find("(from a tail call in the function at " + file.path() + ":1)"),
      std::string::npos)
      << request.error().message;
}

TEST(ThreadScript, RequestMustReturnANonEmptyString) {
  TempScript file(R"(
function init(args) kind = args[1] end
function request()
  if kind == "nil" then return nil end
  if kind == "number" then return 42 end
  if kind == "table" then return {} end
  if kind == "empty" then return "" end
  return "GET / HTTP/1.1\r\n\r\n"
end)");
  for (const char* kind : {"nil", "number", "table", "empty"}) {
    auto script = ready(file.path(), local_target(), {"u", kind});
    ASSERT_NE(script, nullptr);
    auto request = script->request();
    ASSERT_FALSE(request.ok()) << kind;
    EXPECT_EQ(request.error().message.rfind(file.path() + ":3: request() returned", 0), 0u)
        << request.error().message;
  }
}

TEST(ThreadScript, StateStaysUsableAfterAnError) {
  TempScript file(R"(
n = 0
function request()
  n = n + 1
  if n == 1 then error("first fails") end
  return "GET /" .. n .. " HTTP/1.1\r\n\r\n"
end)");
  auto script = ready(file.path());
  ASSERT_NE(script, nullptr);
  EXPECT_FALSE(script->request().ok());
  EXPECT_EQ(next_request(*script), "GET /2 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(next_request(*script), "GET /3 HTTP/1.1\r\n\r\n");
}

TEST(ThreadScript, HostileScriptsDoNotCrash) {
  const char* scripts[] = {
      // strict mode: reading an undefined global raises
      "setmetatable(_G, { __index = function(_, k) error('undeclared ' .. k, 2) end })",
      "wrk = nil",
      "wrk = 5",
      "function request() return 1 + request() end",  // stack overflow
      "function response() error({}) end\nfunction request() error(setmetatable({}, {})) end",
      "wrk.thread = nil\nfunction init() wrk.thread:stop() end",
      "function init() wrk.thread.addr = 5 end",
      "function init() wrk.thread.other = 1 end",
      "function init() wrk.lookup() end",
      "function init() getmetatable(wrk.thread).__gc(wrk.thread); wrk.thread:get('x') end",
  };
  for (const char* code : scripts) {
    TempScript file(code);
    auto loaded = ThreadScript::load(file.path(), local_target());
    if (!loaded.ok()) continue;
    ThreadScript& script = **loaded;
    Status init = script.init(url_args());
    (void)script.is_static();
    (void)script.wants_response();
    (void)script.has_delay();
    (void)script.request();
    (void)script.response(200, nullptr, 0, "");
    (void)script.delay_ms();
    if (!init.ok()) {
      EXPECT_FALSE(init.error().message.empty()) << code;
    }
  }
}

TEST(ThreadScript, OwnThreadObjectGetsAndSetsOwnGlobals) {
  TempScript file(R"(
function init(args)
  source = { 1, { 2 } }
  wrk.thread:set("copy", source)
  same = wrk.thread:get("source") == source
  copied = wrk.thread:get("copy") ~= source and wrk.thread:get("copy")[2][1] == 2
end
function request() return tostring(same) .. tostring(copied) end)");
  auto script = ready(file.path());
  ASSERT_NE(script, nullptr);
  EXPECT_EQ(next_request(*script), "truetrue");
}

}  // namespace
}  // namespace hail
