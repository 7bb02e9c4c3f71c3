// The browser bundle's entry: jszmq's sockets as the global `jszmq`.
export * from 'jszmq';
