package io.unitas.control.client.state;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.internal.FileStamp;
import io.unitas.control.client.internal.StateParts;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.fence.Writes;
import io.unitas.core.rules.UnitRules;

/**
 * Routing state from files: topology, rules (optionally), health and (optionally) fences, checked for changes every reload
 * interval. A change that does not read or validate is refused with one line on stderr and the follower keeps
 * serving the state it had; the files must be good at start.
 */
final class StaticFilesFeed implements StateFeed {

    private static final Logger LOG = LoggerFactory.getLogger(StaticFilesFeed.class);

    private final StateSource.StaticFiles files;
    private final Writes writes;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "unitas-state-reload");
        t.setDaemon(true);
        return t;
    });
    private FileStamp seen;
    private long revision;

    StaticFilesFeed(StateSource.StaticFiles files, Writes writes) {
        this.files = files;
        this.writes = writes;
    }

    @Override
    public void start(StateHolder holder) {
        seen = stamp();
        load(holder);
        long every = files.reloadInterval().toMillis();
        poller.scheduleWithFixedDelay(() -> reloadIfChanged(holder), every, every, TimeUnit.MILLISECONDS);
    }

    private void reloadIfChanged(StateHolder holder) {
        FileStamp now = stamp();
        if (now.equals(seen)) {
            return;
        }
        seen = now;
        try {
            load(holder);
        } catch (RuntimeException e) {
            LOG.warn("reload refused, still serving revision {}: {}", revision, e.getMessage());
        } catch (Error e) { // a scheduled task that throws is never run again: the reload must outlive it
            LOG.error("reload failed, still serving revision {}; trying again at the next change", revision, e);
        }
    }

    private void load(StateHolder holder) {
        Topology topology = StateParts.topology(ConfigDocument.read(files.topology()));
        UnitRules rules = files.rules() == null ? null
                          : StateParts.rules(ConfigDocument.read(files.rules()), topology);
        HealthSnapshot health = StateParts.health(ConfigDocument.read(files.health()), topology);
        WriteFences fences = WriteFences.of(java.util.Map.of(), writes);
        if (files.fences() != null) {
            ConfigDocument fencesDoc = ConfigDocument.read(files.fences());
            fences = StateParts.fences(fencesDoc, fencesDoc.root(), "", writes);
        }
        revision++;
        holder.publish(revision, topology, rules, health, fences);
    }

    private FileStamp stamp() {
        return FileStamp.of(files.topology(), files.rules(), files.health(), files.fences());
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
