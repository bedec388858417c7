/* source.h - source files and spans.
 *
 * Every token, AST node and IR node carries a Span so that any stage can point
 * a diagnostic at the user's text.  A SourceFile owns its text and a table of
 * line starts; spans refer to it by pointer, so files must outlive the IR built
 * from them (the driver keeps them in a SourceManager). */
#ifndef TVS_BASE_SOURCE_H
#define TVS_BASE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct SourceFile {
  char *name;          /* path as the user gave it, or "<stdin>", "<repl>" */
  char *text;          /* NUL-terminated contents (may contain NULs; len is authoritative) */
  size_t len;          /* length of text in bytes */
  uint32_t *lines;     /* byte offset of the start of each line */
  uint32_t nlines;     /* number of entries in lines */
} SourceFile;

/* A half-open byte range [off, off+len) of a file, with the 1-based line and
 * column of its start cached for rendering.  file == NULL means "no location". */
typedef struct Span {
  const SourceFile *file; /* owning file, or NULL for synthesized nodes */
  uint32_t off;           /* byte offset of the first character */
  uint32_t len;           /* length in bytes (0 for a point) */
  uint32_t line;          /* 1-based line of off */
  uint32_t col;           /* 1-based column (bytes) of off */
} Span;

extern const Span span_none;

/* Creates a file from a copy of text[0..len).  Never fails except on OOM (aborts). */
SourceFile *src_from_string(const char *name, const char *text, size_t len);
/* The largest source file src_from_path reads (well above any real program:
 * a generated 10,000-line module is ~0.5 MiB); bigger ones are refused. */
#define TVS_SOURCE_MAX (64u << 20)
#define TVS_SOURCE_MAX_TEXT "64 MiB"
/* Reads a file; returns NULL and sets *err (static string from strerror) on failure.
 * Directories, devices (/dev/zero never ends) and files over TVS_SOURCE_MAX are
 * refused; pipes are read up to the limit. */
SourceFile *src_from_path(const char *path, const char **err);
void src_free(SourceFile *f);

/* The span covering offsets [off, off+len) of f. */
Span src_span(const SourceFile *f, uint32_t off, uint32_t len);
/* The smallest span covering both a and b (same file); either may be span_none. */
Span span_join(Span a, Span b);
/* The text of line `line` (1-based) without its newline; *len receives its length. */
const char *src_line_text(const SourceFile *f, uint32_t line, size_t *len);

#endif
