package io.zmtp.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Input lines as bytes: a line ends at a newline (\n), or at \r\n, whose \r is dropped; the
 * last line needs no newline. Nothing else is interpreted.
 */
final class InputLines {
    private final InputStream in;
    private final byte[] buf = new byte[8192];
    private int pos;
    private int end;
    byte[] line = new byte[256];
    int length;

    InputLines(InputStream in) {
        this.in = in;
    }

    /** Reads the next line into {@code line[0, length)}; false at the end of the input. */
    boolean next() throws IOException {
        length = 0;
        boolean any = false;
        while (true) {
            if (pos == end) {
                int n = in.read(buf);
                if (n < 0) {
                    return any;
                }
                pos = 0;
                end = n;
                continue;
            }
            any = true;
            int i = pos;
            while (i < end && buf[i] != '\n') {
                i++;
            }
            append(pos, i);
            if (i < end) {
                pos = i + 1;
                if (length > 0 && line[length - 1] == '\r') {
                    length--;
                }
                return true;
            }
            pos = end;
        }
    }

    private void append(int from, int to) {
        int n = to - from;
        if (length + n > line.length) {
            line = Arrays.copyOf(line, Math.max(line.length * 2, length + n));
        }
        System.arraycopy(buf, from, line, length, n);
        length += n;
    }
}
