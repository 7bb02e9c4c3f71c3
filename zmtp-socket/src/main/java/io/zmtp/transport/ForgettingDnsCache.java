package io.zmtp.transport;

import io.netty.channel.EventLoop;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.resolver.dns.DefaultDnsCache;
import io.netty.resolver.dns.DnsCache;
import io.netty.resolver.dns.DnsCacheEntry;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A resolver's cache (Netty's {@link DefaultDnsCache}: each answer kept for its records' TTL) that
 * can forget a name before its TTL ends, under every form it was cached as. The resolver caches a
 * name the system's search domains completed under the completed form ({@code db} as
 * {@code db.default.svc.cluster.local}), and those forms are not known outside it, so the names
 * cached are remembered here. The resolver's, touched on its thread only.
 */
final class ForgettingDnsCache implements DnsCache {
    private final DefaultDnsCache cache = new DefaultDnsCache();
    /** The names cached (normalised), possibly expired since: at most the names this loop looked up. */
    private final Set<String> names = new HashSet<>();

    /** Forgets {@code host} and every name made of it by a search domain ({@code host.}...). */
    void forget(String host) {
        String h = normalized(host);
        for (Iterator<String> i = names.iterator(); i.hasNext(); ) {
            String n = i.next();
            if (n.equals(h) || n.startsWith(h + ".")) {
                cache.clear(n);
                i.remove();
            }
        }
        cache.clear(h);
    }

    @Override
    public void clear() {
        cache.clear();
        names.clear();
    }

    @Override
    public boolean clear(String hostname) {
        names.remove(normalized(hostname));
        return cache.clear(hostname);
    }

    @Override
    public List<? extends DnsCacheEntry> get(String hostname, DnsRecord[] additionals) {
        return cache.get(hostname, additionals);
    }

    @Override
    public DnsCacheEntry cache(String hostname, DnsRecord[] additionals, InetAddress address, long originalTtl,
                               EventLoop loop) {
        names.add(normalized(hostname));
        return cache.cache(hostname, additionals, address, originalTtl, loop);
    }

    @Override
    public DnsCacheEntry cache(String hostname, DnsRecord[] additionals, Throwable cause, EventLoop loop) {
        names.add(normalized(hostname));
        return cache.cache(hostname, additionals, cause, loop);
    }

    /** The lowercase name without its final dot: how the names are compared. */
    private static String normalized(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }
}
