// INSTRUCTOR SIDE (grade-all). Pairs of a class's submissions of one rung whose code is alike once
// what every submission shares is set aside: MOSS's method (Schleimer, Wilkerson and Aiken,
// "Winnowing: local algorithms for document fingerprinting", SIGMOD 2003), written here:
//   - each file becomes tokens, comments, whitespace and preprocessor lines dropped, every name
//     that is not a C++ keyword or a CUDA built-in made one token "I" (a renamed variable changes
//     nothing), strings "S";
//   - every run of k tokens is hashed, and of each window of w hashes the least is kept: the file's
//     fingerprints, each with the lines it covers;
//   - every hash of the rung's reference solution and of the exercise made from it is set aside
//     (the code every student starts from and most end at), and so is a hash that more than a fifth
//     of the class's submissions share (at least 4): what a class writes alike is no evidence;
//   - a pair's score is the fingerprints they share over the fewer either has left.
// A pair is listed when it shares at least `min_shared` fingerprints and scores at least
// `threshold`. Similarity is evidence for a person to read, never a verdict: two students who
// fill the same one-line TODO the same, correct way share nothing the method can see past.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace lab::batch {

struct SimilarityOptions {
    int k = 10;               // tokens per hashed run
    int window = 4;           // hashes per winnowing window
    double threshold = 0.5;   // the least score listed
    int min_shared = 6;       // the fewest shared fingerprints listed
};

// One student's file of one rung.
struct RungFile {
    std::string student, text;
};

struct SimilarPair {
    std::string a, b;            // students, a before b in the order given
    double score = 0;            // shared / min(own fingerprints of a, of b)
    int shared = 0, own_a = 0, own_b = 0;
    std::set<int> lines_a, lines_b;  // the lines (from 1) the shared fingerprints cover in each file
};

struct RungSimilarity {
    std::string rung;
    int files = 0;             // submissions compared
    int common = 0;            // fingerprints set aside as shared by too much of the class
    std::vector<SimilarPair> pairs;  // listed ones, highest score first
};

// The pairs of `files` (one rung's) alike beyond `base` (the reference's and the exercise's text).
RungSimilarity similar_pairs(const std::string& rung, const std::vector<RungFile>& files, const std::vector<std::string>& base,
                             const SimilarityOptions& options = {});

// The normalised tokens of a C++/CUDA text, each with its line (exposed for the tests).
struct Token {
    std::string text;
    int line = 0;
};
std::vector<Token> tokens_of(const std::string& text);

// The report of a class: for each rung with a listed pair, the pairs, with their shared lines
// side by side. `texts` gives each student's file by rung, to show those lines.
using ClassTexts = std::map<std::string, std::map<std::string, std::string>>;  // rung -> student -> file
std::string similarity_markdown(const std::vector<RungSimilarity>& rungs, const SimilarityOptions& options, const ClassTexts& texts);
std::string similarity_html(const std::vector<RungSimilarity>& rungs, const SimilarityOptions& options, const ClassTexts& texts);

// Every listed student's files in OUT (students/ID/graded/NN.cu, as lab-grade kept them),
// compared rung by rung against the kit's reference and the exercise made from it.
struct ClassSimilarity {
    std::vector<RungSimilarity> rungs;
    ClassTexts texts;
    int listed = 0;  // pairs listed, over every rung
};
ClassSimilarity class_similarity(const std::string& out, const std::vector<std::string>& students,
                                 const SimilarityOptions& options = {});

}  // namespace lab::batch
