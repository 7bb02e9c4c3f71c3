/**
 * The pattern kit: what every reliable pattern of the guide's chapter 4 needs, written once, and
 * used by every pattern package for its settings, heartbeats, retries, backoff and worker queues.
 *
 * <ul>
 *   <li>Time: {@link io.zmtp.patterns.kit.PatternClock} (one clock per component, set in its
 *       settings), {@link io.zmtp.patterns.kit.LoopClock} (that clock on the component's loop),
 *       {@link io.zmtp.patterns.kit.ManualClock} (the clock of tests).</li>
 *   <li>Components: {@link io.zmtp.patterns.kit.LoopComponent} (the lifecycle),
 *       {@link io.zmtp.patterns.kit.ComponentSettings} (the settings builder every component's
 *       extends), {@link io.zmtp.patterns.kit.EventReporter} (events to the listener and the debug
 *       log), {@link io.zmtp.patterns.kit.Futures}, {@link io.zmtp.patterns.kit.ReconnectStoppedException}
 *       (why a worker closed itself: its socket stopped reconnecting, so its peer is out of reach
 *       for good; {@link io.zmtp.patterns.kit.LoopComponent#terminated()} fails with it).</li>
 *   <li>Heartbeats: {@link io.zmtp.patterns.kit.PeerLiveness}, the one heartbeat of the pattern
 *       level (a beat every interval, late beats discounted; the peers by last heard, expired on
 *       the beat; heartbeats due per peer), with its settings {@link io.zmtp.patterns.kit.Heartbeat}
 *       (interval and liveness); {@link io.zmtp.patterns.kit.UpstreamConnection} (a worker's
 *       connection to its queue or broker, replaced after a {@link io.zmtp.patterns.kit.Backoff}
 *       when the peer is lost).</li>
 *   <li>Retries: {@link io.zmtp.patterns.kit.RetryingRequester} (the client side of reliable
 *       request-reply) with its {@link io.zmtp.patterns.kit.RetryPolicy}, the owner's
 *       {@link io.zmtp.patterns.kit.ReplyJudge}, and {@link io.zmtp.patterns.kit.Failover} (moved
 *       through by {@link io.zmtp.patterns.kit.EndpointRotation}, which the Majordomo worker uses
 *       too); {@link io.zmtp.patterns.kit.NoReplyException}, {@link io.zmtp.patterns.kit.RequestEvent};
 *       {@link io.zmtp.patterns.kit.RequesterComponent} (the lifecycle of every client built on it,
 *       the Majordomo clients included: its requests fail if its loop is shut down under it),
 *       {@link io.zmtp.patterns.kit.RequesterClient} (its calls for clients of messages) and
 *       {@link io.zmtp.patterns.kit.BlockingReply}.</li>
 *   <li>Workers: {@link io.zmtp.patterns.kit.WorkerCore} (a worker's requests one at a time, with
 *       its queue: every worker of the package, the Majordomo worker included),
 *       {@link io.zmtp.patterns.kit.RequestHandler} (the user code),
 *       {@link io.zmtp.patterns.kit.WorkerSettings}, {@link io.zmtp.patterns.kit.WorkerEvent},
 *       {@link io.zmtp.patterns.kit.ReadyWorkers} (the least-recently-used order of idle workers),
 *       {@link io.zmtp.patterns.kit.Envelope}, {@link io.zmtp.patterns.kit.FailureSimulation} and
 *       {@link io.zmtp.patterns.kit.DelayedMessage} (the guide's simulated faults and work time).</li>
 * </ul>
 *
 * <p>Everything here runs on one event loop per component: the kit's pieces are reactors (event
 * handlers and timers of the component's clock), never threads of their own.
 */
package io.zmtp.patterns.kit;
