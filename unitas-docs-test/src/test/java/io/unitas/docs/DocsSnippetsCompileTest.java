package io.unitas.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code ```java} block of {@code docs/*.md} and {@code README.md} compiles, imports included, against every
 * unitas module and Spring: a reader who copies one gets code that builds. A block is compiled as it reads: a whole
 * file when it declares a type at its left margin, class members when it starts with an annotation or a method,
 * otherwise statements in a method; its {@code import} lines are kept as imports. The blocks of one Markdown file are
 * compiled together, so a type one declares (the walkthrough's {@code Wallet}) is there for the next. A failure names
 * the file and the line in it, and the compiler's message. Output and other text go in {@code ```text} blocks.
 */
class DocsSnippetsCompileTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern FENCE_JAVA = Pattern.compile("^\\s*```java\\s*$");
    private static final Pattern FENCE_END = Pattern.compile("^\\s*```\\s*$");
    private static final Pattern TYPE = Pattern.compile(
            "^(?:public |abstract |final |sealed |non-sealed )*(class|record|interface|enum|@interface) (\\w+)",
            Pattern.MULTILINE);
    private static final Pattern MEMBER = Pattern.compile(
            "^(?:@\\w+|(?:public |protected |private |static |final |abstract |synchronized )*"
            + "(?:<[^>]+> )?[\\w.<>,?\\[\\] ]+ \\w+\\([^;]*$)");

    /** One {@code ```java} block: where it is and what it says. */
    record Snippet(Path file, int line, List<String> lines) {
        String where() {
            return ROOT.relativize(file) + ":" + line;
        }
    }

    static List<Path> markdown() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        return files;
    }

    static List<Snippet> snippets(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Snippet> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (FENCE_JAVA.matcher(lines.get(i)).matches()) {
                int start = i + 1;
                int end = start;
                while (end < lines.size() && !FENCE_END.matcher(lines.get(end)).matches()) {
                    end++;
                }
                // blocks inside list items are indented: take the fence's indentation off every line
                int indent = lines.get(i).indexOf('`');
                List<String> body = lines.subList(start, end).stream()
                        .map(l -> l.length() >= indent && l.substring(0, indent).isBlank() ? l.substring(indent) : l)
                        .toList();
                found.add(new Snippet(file, start + 1, body));
                i = end;
            }
        }
        return found;
    }

    @Test
    void theDocsHaveJavaBlocks() throws IOException {
        int count = 0;
        for (Path file : markdown()) {
            count += snippets(file).size();
        }
        assertThat(count).as("```java blocks in docs/ and README.md").isGreaterThan(20);
    }

    @Test
    void aBlockThatDoesNotCompile_isNamedByFileLineAndTheCompilersMessage() throws IOException {
        Snippet bad = new Snippet(ROOT.resolve("docs/example.md"), 10,
                                  List.of("import java.util.List;", "", "List<String> names = List.of(1, 2);"));

        assertThat(compile(List.of(bad)).get(bad)).singleElement().asString()
                .startsWith("docs/example.md:12: incompatible types");
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockCompiles() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : markdown()) {
            List<Snippet> snippets = snippets(file);
            if (snippets.isEmpty()) {
                continue;
            }
            Map<Snippet, List<String>> problems = compile(snippets);
            for (Snippet snippet : snippets) {
                tests.add(DynamicTest.dynamicTest(snippet.where(), () -> {
                    assertThat(problems.get(snippet)).as("%s does not compile", snippet.where()).isEmpty();
                }));
            }
        }
        return tests.stream();
    }

    /** A source the compiler reads from memory. */
    static final class Source extends SimpleJavaFileObject {
        private final String code;

        Source(String className, String code) {
            super(URI.create("string:///" + className.replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }

    /** One block as a source file, and how its lines map back to the Markdown file. */
    record Unit(Snippet snippet, Source source, int offset, int firstLine) {
    }

    /**
     * A block as the compiler reads it: a whole file when it declares a type, otherwise wrapped in a class named
     * after its line (members as they are, statements in a method); one source line per Markdown line after the
     * imports, so a diagnostic's line maps back.
     */
    static Unit unit(Snippet snippet) {
        List<String> imports = new ArrayList<>();
        List<String> body = new ArrayList<>();
        int firstBodyLine = -1;
        for (int i = 0; i < snippet.lines().size(); i++) {
            String l = snippet.lines().get(i);
            if (firstBodyLine < 0 && (l.startsWith("import ") || l.startsWith("package ") || l.isBlank())) {
                imports.add(l.startsWith("package ") ? "" : l);
                continue;
            }
            if (firstBodyLine < 0) {
                firstBodyLine = i;
            }
            body.add(l);
        }
        String text = String.join("\n", body);
        String firstCode = body.stream().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("//") && !l.startsWith("/*") && !l.startsWith("*"))
                .findFirst().orElse("");
        String className = "Snippet" + snippet.line();
        String open;
        String close;
        Matcher type = TYPE.matcher(text);
        if (type.find()) {
            className = type.group(2);
            open = null;
            close = "";
        } else if (MEMBER.matcher(firstCode).find()) {
            open = "class " + className + " {";
            close = "\n}\n";
        } else {
            open = "class " + className + " { void snippet() throws Exception {";
            close = "\n}\n}\n";
        }
        StringBuilder code = new StringBuilder("package snippet;\n");
        imports.forEach(i -> code.append(i).append('\n'));
        if (open != null) {
            code.append(open).append('\n');
        }
        code.append(text).append(close);
        int offset = 1 + imports.size() + (open == null ? 0 : 1);
        return new Unit(snippet, new Source("snippet." + className, code.toString()), offset,
                        snippet.line() + Math.max(firstBodyLine, 0));
    }

    /** The compiler's errors per block of one Markdown file ("file:line: message"); its blocks compile together. */
    static Map<Snippet, List<String>> compile(List<Snippet> snippets) throws IOException {
        List<Unit> units = snippets.stream().map(DocsSnippetsCompileTest::unit).toList();
        Map<Snippet, List<String>> problems = new HashMap<>();
        units.forEach(u -> problems.put(u.snippet(), new ArrayList<>()));
        if (units.isEmpty()) {
            return problems;
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path out = Files.createTempDirectory("snippets");
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            List<String> options = List.of("-classpath", classPath(), "-d", out.toString(), "-proc:none",
                                           "-Xlint:none", "-parameters");
            compiler.getTask(new StringWriter(), files, diagnostics, options, null,
                             units.stream().map(Unit::source).toList()).call();
        }
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            for (Unit u : units) {
                if (d.getKind() == Diagnostic.Kind.ERROR && u.source() == d.getSource()) {
                    long line = u.firstLine() + (d.getLineNumber() - 1 - u.offset());
                    problems.get(u.snippet()).add(ROOT.relativize(u.snippet().file()) + ":" + line + ": "
                            + String.join(" ", d.getMessage(Locale.ROOT).lines().map(String::strip).toList()));
                }
            }
        }
        return problems;
    }

    /** The test class path: every unitas module and Spring (surefire names it; java.class.path may be its jar). */
    static String classPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }
}
