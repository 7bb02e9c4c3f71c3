package io.zmtp.patterns.titanic;

/** The store is at its bound; the request was not stored (Titanic answers 500). */
public final class TitanicStoreFullException extends RuntimeException {
    public TitanicStoreFullException(String message) {
        super(message, null, false, false);
    }
}
