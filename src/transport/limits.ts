/**
 * Limits both transports share, so a client meets the same ceiling whichever it uses.
 *
 * The largest request: the gateway's body (413 past it) and the gRPC server's received message
 * (RESOURCE_EXHAUSTED past it). A full 1,000-user batch fits while its texts average under ~5,000
 * bytes; a bigger one is sent as several batches.
 */
export const MAX_REQUEST_BYTES = 5 * 1024 * 1024;
