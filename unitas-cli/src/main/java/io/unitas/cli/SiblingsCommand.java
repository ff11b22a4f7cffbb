package io.unitas.cli;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.Siblings;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.merge.Codec;
import io.unitas.data.merge.MergeStore;
import io.unitas.data.merge.MergedEntity;
import io.unitas.data.merge.OpenSiblings;
import io.unitas.data.outbox.Outbox;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas siblings list} and {@code unitas siblings resolve}: the entities of one region's database whose
 * concurrent writes their merge policy kept side by side, and their resolution on record, written through that
 * region's outbox so it replaces the siblings in every region. Reads and writes the region's database directly
 * (unitas's tables, {@code unitas_siblings}); the service need not run. Exit codes: 0 done, 1 the database cannot be
 * reached or has no unitas tables, 2 bad input, 3 nothing to resolve there (no open siblings of that key, not a
 * siblings register, no such version).
 */
@Command(name = "siblings",
         description = "List the entities in conflict in a region's database, and resolve one on record.",
         mixinStandardHelpOptions = true,
         subcommands = {SiblingsCommand.ListOpen.class, SiblingsCommand.Resolve.class})
final class SiblingsCommand implements Runnable {

    /** The database cannot be reached, or holds no unitas tables of this version. */
    static final int EXIT_DATABASE = 1;
    /** Nothing to resolve: no open siblings of the key, a state that is not a siblings register, no such version. */
    static final int EXIT_NOTHING = 3;

    // Any bytes, one char per byte: the CLI does not know the service's value codec and must not change a value.
    private static final Codec<String> RAW = Codec.of(s -> s.getBytes(StandardCharsets.ISO_8859_1),
                                                      b -> new String(b, StandardCharsets.ISO_8859_1));

    @ParentCommand
    Main main;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(main.out());
    }

    /** What both subcommands share: the region's database. */
    abstract static class WithDatabase implements Callable<Integer> {
        @ParentCommand
        SiblingsCommand parent;

        @Option(names = "--db", required = true, paramLabel = "JDBC_URL",
                description = "the region's PostgreSQL, as jdbc:postgresql://host:port/database?user=...")
        String db;

        @Option(names = "--region", required = true, paramLabel = "ID",
                description = "the region this database belongs to (writes a resolution as this region)")
        String region;

        @Override
        public final Integer call() {
            PrintStream err = parent.main.err();
            if (!db.startsWith("jdbc:postgresql://")) {
                err.println("--db: '" + db + "' (expected: jdbc:postgresql://host:port/database?user=...)");
                return Main.EXIT_USAGE;
            }
            Region id;
            try {
                id = Region.of(region);
            } catch (IllegalArgumentException e) {
                err.println("--region: " + e.getMessage());
                return Main.EXIT_USAGE;
            }
            PGSimpleDataSource source = new PGSimpleDataSource();
            source.setUrl(db);
            try {
                if (!UnitasSchema.appliedVersions(source).contains(7)) {
                    err.println(db + ": no unitas_siblings (expected: unitas's tables at version 7 or later)");
                    return EXIT_DATABASE;
                }
                List<OpenSiblings> open = MergeStore.jdbc(id, source, List.of(), Clock.systemUTC(),
                                                          new SimpleMeterRegistry()).openSiblings();
                List<MergedEntity<?>> types = new ArrayList<>();
                open.stream().map(OpenSiblings::type).distinct()
                    .forEach(t -> types.add(MergedEntity.of(t, MergePolicy.siblings(), Codec.siblings(RAW))));
                MergeStore store = MergeStore.jdbc(id, source, types, Clock.systemUTC(), new SimpleMeterRegistry());
                return run(store, source, open, parent.main.out(), err);
            } catch (IllegalStateException e) { // the driver's message may run on with a position line
                err.println(db + ": " + e.getMessage().lines().findFirst().orElse(""));
                return EXIT_DATABASE;
            }
        }

        abstract int run(MergeStore store, PGSimpleDataSource source, List<OpenSiblings> open, PrintStream out,
                         PrintStream err);

        @SuppressWarnings("unchecked")
        static Optional<Siblings<String>> versions(MergeStore store, String type, String key) {
            MergedEntity<Siblings<String>> entity = (MergedEntity<Siblings<String>>) store.entities().get(type);
            if (entity == null) {
                return Optional.empty();
            }
            try {
                return store.read(entity, key);
            } catch (IllegalArgumentException e) { // a state of another policy (an OR-map's conflicting values)
                return Optional.empty();
            }
        }
    }

    /** {@code unitas siblings list}. */
    @Command(name = "list", mixinStandardHelpOptions = true,
             description = "Print every entity in conflict, oldest first: type, key, unit, versions, detected at; "
                           + "then each version numbered with its version vector and its value as UTF-8.")
    static final class ListOpen extends WithDatabase {
        @Override
        int run(MergeStore store, PGSimpleDataSource source, List<OpenSiblings> open, PrintStream out,
                PrintStream err) {
            out.println("type\tkey\tunit\tversions\tdetected_at");
            for (OpenSiblings o : open) {
                out.println(o.type() + "\t" + o.key() + "\t" + o.unit() + "\t" + o.versions() + "\t" + o.detectedAt());
                Optional<Siblings<String>> state = versions(store, o.type(), o.key());
                if (state.isEmpty()) {
                    out.println("  " + o.detail());
                    continue;
                }
                List<Siblings.Version<String>> versions = state.get().versions();
                for (int i = 0; i < versions.size(); i++) {
                    String value = new String(versions.get(i).value().getBytes(StandardCharsets.ISO_8859_1),
                                              StandardCharsets.UTF_8);
                    out.println("  [" + (i + 1) + "] " + versions.get(i).version() + " " + value);
                }
            }
            return 0;
        }
    }

    /** {@code unitas siblings resolve}. */
    @Command(name = "resolve", mixinStandardHelpOptions = true,
             description = "Resolve the siblings of one entity by choosing one of its versions (as numbered by "
                           + "'list'): written over all of them as this region, appended to its outbox so every "
                           + "region gets it, and recorded with who and why.")
    static final class Resolve extends WithDatabase {
        @Option(names = "--type", required = true, paramLabel = "TYPE", description = "the entity type")
        String type;

        @Option(names = "--key", required = true, paramLabel = "KEY", description = "the entity's key")
        String key;

        @Option(names = "--choose", required = true, paramLabel = "N",
                description = "the version to keep, numbered from 1 as 'list' prints them")
        int choose;

        @Option(names = "--who", required = true, paramLabel = "NAME", description = "who resolves (on record)")
        String who;

        @Option(names = "--reason", required = true, paramLabel = "TEXT", description = "why (on record)")
        String reason;

        @Override
        @SuppressWarnings("unchecked")
        int run(MergeStore store, PGSimpleDataSource source, List<OpenSiblings> open, PrintStream out,
                PrintStream err) {
            Optional<Siblings<String>> state = versions(store, type, key);
            if (state.isEmpty()) {
                err.println(type + " " + key + ": no open siblings register (expected one listed by"
                            + " 'unitas siblings list')");
                return EXIT_NOTHING;
            }
            List<String> values = state.get().values();
            if (choose < 1 || choose > values.size()) {
                err.println("--choose: " + choose + " (expected: 1 to " + values.size() + ")");
                return EXIT_NOTHING;
            }
            MergedEntity<Siblings<String>> entity = (MergedEntity<Siblings<String>>) store.entities().get(type);
            String chosen = values.get(choose - 1);
            try {
                store.resolve(Outbox.jdbc(store.region(), source, Clock.systemUTC()), entity, key,
                              s -> s.resolve(store.region().id(), chosen), who, reason);
            } catch (IllegalArgumentException e) {
                err.println(e.getMessage());
                return EXIT_NOTHING;
            }
            out.println("resolved " + type + " " + key + ": kept version " + choose + " of " + values.size()
                        + ", on record by " + who);
            return 0;
        }
    }
}
