// ./lab handouts [OUT]: the handouts as HTML (default OUT: build/handouts). Draws every rung's
// figure afresh into OUT/figures (handouts/figures/make_figures.py, matplotlib), then renders each
// page of handouts/ with pandoc into one self-contained HTML file (images embedded), links between
// pages pointing at their HTML; OUT/index.html is the overview. The Markdown stays the source, and
// reads as it is on GitHub.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "kit.hpp"
#include "lab/process.hpp"

namespace lab::cli {

namespace fs = std::filesystem;

namespace {

// The page's first heading, for the HTML title.
std::string title_of(const std::string& markdown)
{
    std::istringstream lines(markdown);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("# ", 0) == 0) return line.substr(2);
    return "CUDA reduction lab";
}

}  // namespace

int handouts(const Kit& kit, const std::string& out_dir)
{
    const std::string out = fs::absolute(out_dir.empty() ? kit.build + "/handouts" : out_dir).string();
    const std::string source = kit.root + "/handouts";
    fs::create_directories(out + "/figures");
    say("== the figures (handouts/figures/make_figures.py) into " + out + "/figures");
    const std::string python = kit.python_with("matplotlib");
    if (kit.run({python, source + "/figures/make_figures.py", out + "/figures"}) != 0)
        throw Failure("drawing the figures failed (see above); they need python3 with matplotlib "
                      "(Debian: apt-get install python3-matplotlib)");
    std::vector<std::string> pages;
    for (const auto& entry : fs::recursive_directory_iterator(source))
        if (entry.is_regular_file() && entry.path().extension() == ".md")
            pages.push_back(fs::relative(entry.path(), source).string());
    std::sort(pages.begin(), pages.end());
    say("== " + std::to_string(pages.size()) + " pages, with pandoc, into " + out);
    // Links between the pages, and up to the kit (../README.md), become links between the HTML files.
    const std::regex md_link(R"(href="([^":#]+)\.md(#[^"]*)?")");
    for (const std::string& page : pages) {
        const std::string html = out + "/" + page.substr(0, page.size() - 3) + ".html";
        fs::create_directories(fs::path(html).parent_path());
        const std::string page_dir = fs::path(source + "/" + page).parent_path().string();
        const std::string figures_seen_from_page = out + "/" + fs::path(page).parent_path().string();
        process::Options options;
        options.search_path = true;
        options.directory = page_dir;
        options.output = html + ".log";
        // pandoc's default page is 36em wide, which shrinks a figure of ten inches to half its size;
        // the handouts' figures are drawn for a page of about 60em.
        const int code = process::run({"pandoc", "--from", "gfm", "--to", "html5", "--standalone", "--self-contained",
                                       "--variable", "header-includes=<style>body { max-width: 62em; }</style>",
                                       "--metadata", "pagetitle=" + title_of(lab::read_file(source + "/" + page)),
                                       "--resource-path", figures_seen_from_page + ":" + page_dir, "--output", html,
                                       source + "/" + page},
                                      options);
        if (code != 0) {
            std::cerr << lab::read_file(html + ".log");
            throw Failure("pandoc could not render handouts/" + page + " (its messages are above; Debian: apt-get install pandoc)");
        }
        fs::remove(html + ".log");
        const std::string rendered = lab::read_file(html);
        std::ofstream(html) << std::regex_replace(rendered, md_link, "href=\"$1.html$2\"");
    }
    fs::copy_file(out + "/overview.html", out + "/index.html", fs::copy_options::overwrite_existing);
    say("wrote " + out + "/index.html (the overview) and a page per handout");
    return 0;
}

}  // namespace lab::cli
