package io.zmtp.cli;

import io.zmtp.socket.SocketOptions;
import io.zmtp.patterns.majordomo.MajordomoClient;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoException;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.patterns.majordomo.MmiService;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code zmtp mmi}: asks a broker's {@code mmi.service} whether a service has workers (the
 * guide's mmiecho) and prints the code. Exit status: 0 for "200", 1 for any other code ("404"
 * not found, "501" not implemented), 2 when the broker did not answer.
 */
@Command(name = "mmi", mixinStandardHelpOptions = true,
        description = {"Asks the broker's mmi.service whether a service has workers and prints the code.",
                "200: workers registered; 404: none."},
        sortOptions = false,
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:200, the service has workers", "1:any other code (404 not found, 501 not implemented)",
                "2:no answer, or bad options"})
public final class MmiCommand implements Callable<Integer>, ConnectingCommand {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    // initial values, not defaultValue: picocli applies a defaultValue after the hidden alias
    @Option(names = {"-e", "--endpoint"}, description = "The broker (default: ${DEFAULT-VALUE}).")
    String connect = "tcp://localhost:5555";

    /** The older name of --endpoint. */
    @Option(names = {"-c", "--connect"}, hidden = true, description = "Same as --endpoint.")
    void connect(String endpoint) {
        this.connect = endpoint;
    }

    @Option(names = "--protocol", defaultValue = "0.1", converter = MdpOptions.VersionConverter.class,
            description = "MDP version, 0.1 or 0.2 (default: ${DEFAULT-VALUE})")
    MdpVersion protocol;

    @Option(names = "--mmi-service", defaultValue = MmiService.MMI_SERVICE,
            description = "the MMI service to ask (default: ${DEFAULT-VALUE})")
    String mmiService;

    @Mixin
    CommonOptions.Retries tries = new CommonOptions.Retries(Duration.ofMillis(2500), 1);

    @Mixin
    CommonOptions.Output output;

    @Mixin
    NameLookupOptions names = new NameLookupOptions();

    @Mixin
    ConnectionLossOptions connection = new ConnectionLossOptions();

    @Mixin
    SecurityOptions security;

    @Parameters(index = "0", defaultValue = "echo", description = "the service asked about (default: ${DEFAULT-VALUE})")
    String name;

    /** The options of the command's sockets: security and connection-loss flags over the pattern's defaults. */
    SocketOptions socketOptions() {
        return connection.apply(security.apply(MajordomoClientSettings.builder().build().socketOptions().toBuilder())).build();
    }

    @Override
    public List<SocketOptions> connectingSocketOptions() {
        return List.of(socketOptions());
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        MajordomoClientSettings.Builder settings;
        try {
            settings = MajordomoClientSettings.builder().version(protocol)
                    .timeout(tries.timeout()).retries(tries.retries())
                    .socketOptions(socketOptions());
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("mmi: " + e.getMessage());
            return CommonOptions.USAGE;
        }
        if (output.verbose()) {
            settings.tracer(MdpOptions.tracer(out));
        }
        ZmtpContext ctx = CommandSupport.clientContext(names);
        try (MajordomoClient client = new MajordomoClient(ctx, connect, settings.build())) {
            client.start(); // connects in the background; the request waits behind it on the client's loop
            MajordomoReply r = client.request(mmiService, name);
            String code = r.bodyStrings().isEmpty() ? "" : r.bodyStrings().get(0);
            MdpOptions.line(out, "Lookup " + name + " service: " + code);
            return MmiService.MMI_FOUND.equals(code) ? 0 : 1;
        } catch (MajordomoException e) {
            spec.commandLine().getErr().println("mmi: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 2;
        } finally {
            ctx.close(Duration.ofSeconds(2));
        }
    }
}
