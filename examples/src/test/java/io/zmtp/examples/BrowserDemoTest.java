package io.zmtp.examples;

import io.zmtp.examples.browser.BrowserDemo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The browser example in a real headless Chromium (Debian's chromium, installed by
 * scripts/install-test-deps.sh): the page, served by the example, loads jszmq (built from the npm
 * registry by examples/js/build.sh into target/js), subscribes to {@code news} on the example's
 * PUB and asks its ROUTER over ws:// (ZWS 2.0 without a mechanism, jszmq's subprotocol). The
 * page reports what it received in a last request; the test checks that report (three news
 * items, nothing of the topic it did not subscribe to, the ROUTER's reply) and what the ROUTER
 * received (the page's question first).
 */
class BrowserDemoTest {
    static final long DEADLINE_S = 40;

    @TempDir
    Path profile;
    static Path bundle;

    /** The npm install may take a while on a cold cache: it has its own time limit. */
    @BeforeAll
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    static void bundle() throws Exception {
        bundle = buildBundle();
    }

    @Test
    void aBrowserSubscribesAndAsksOverWebSocket() throws Exception {
        String chromium = findChromium();
        try (BrowserDemo demo = BrowserDemo.start(0, 0, bundle)) {
            List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                    "--user-data-dir=" + profile, demo.pageUrl()));
            Process browser = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(profile.resolve("chromium.log").toFile()).start();
            String report;
            try {
                report = demo.report().get(DEADLINE_S, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("the page reported nothing within " + DEADLINE_S + " s; the ROUTER got " + demo.requests()
                        + "; chromium said:\n" + Files.readString(profile.resolve("chromium.log")));
                return;
            } finally {
                browser.descendants().forEach(ProcessHandle::destroyForcibly);
                browser.destroyForcibly();
                browser.waitFor(10, TimeUnit.SECONDS);
            }
            assertEquals("hello from the browser", demo.requests().get(0), "the page's question reached the ROUTER");
            assertTrue(report.contains("\"reply\":\"echo: hello from the browser\""), report);
            assertTrue(report.matches(".*\"news\":\\[\"news item \\d+\",\"news item \\d+\",\"news item \\d+\"\\].*"),
                    "three news items and nothing else: " + report);
            assertTrue(!report.contains("other") && !report.contains("filtered"), "the unsubscribed topic was filtered: " + report);
        }
    }

    /** examples/target/js/jszmq.js, built by examples/js/build.sh when missing (npm registry). */
    static Path buildBundle() throws Exception {
        Path base = Path.of(System.getProperty("user.dir"));
        Path script = base.resolve("js/build.sh");
        if (!Files.exists(script)) {
            base = base.resolve("examples");
            script = base.resolve("js/build.sh");
        }
        Path bundle = base.resolve("target/js/jszmq.js");
        if (!Files.exists(bundle)) {
            Process p = new ProcessBuilder("bash", script.toString(), base.resolve("target/js").toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                fail("building the jszmq bundle failed:\n" + out);
            }
        }
        return bundle;
    }

    static String findChromium() {
        for (String c : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser")) {
            if (new File(c).canExecute()) {
                return c;
            }
        }
        fail("no chromium: run scripts/install-test-deps.sh (apt-get install chromium)");
        return null;
    }
}
