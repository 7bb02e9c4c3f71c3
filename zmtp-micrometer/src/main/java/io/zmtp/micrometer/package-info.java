/**
 * Micrometer meters for zmtp-netty sockets ({@link io.zmtp.micrometer.ZmtpSocketMeters}). A
 * separate artifact, so that an application without Micrometer pays nothing for it: zmtp-socket
 * keeps its counters either way and never refers to Micrometer.
 */
package io.zmtp.micrometer;
