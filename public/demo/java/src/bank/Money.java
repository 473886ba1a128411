package bank;

/** Formatting and parsing of amounts in cents. */
public final class Money {
    private Money() {}

    /** 123456 -> "1,234.56"; negative amounts get a leading minus. */
    public static String format(long cents) {
        boolean negative = cents < 0;
        long abs = Math.abs(cents);
        String units = Long.toString(abs / 100);
        StringBuilder grouped = new StringBuilder();
        for (int i = 0; i < units.length(); i++) {
            if (i > 0 && (units.length() - i) % 3 == 0) {
                grouped.append(',');
            }
            grouped.append(units.charAt(i));
        }
        return (negative ? "-" : "") + grouped + String.format(".%02d", abs % 100);
    }

    /** "1,234.5" -> 123450; accepts an optional minus, commas and up to two decimals. */
    public static long parse(String text) {
        String t = text.trim().replace(",", "");
        boolean negative = t.startsWith("-");
        if (negative) {
            t = t.substring(1);
        }
        String[] parts = t.split("\\.", -1);
        if (parts.length > 2 || parts[0].isEmpty() || (parts.length == 2 && parts[1].length() > 2)) {
            throw new NumberFormatException("not an amount: " + text);
        }
        long cents = Long.parseLong(parts[0]) * 100;
        if (parts.length == 2 && !parts[1].isEmpty()) {
            String frac = parts[1].length() == 1 ? parts[1] + "0" : parts[1];
            cents += Long.parseLong(frac);
        }
        return negative ? -cents : cents;
    }

    /** Splits an amount into n shares that differ by at most one cent. */
    public static long[] split(long cents, int n) {
        long[] shares = new long[n];
        long base = cents / n;
        long remainder = cents % n;
        for (int i = 0; i < n; i++) {
            shares[i] = base + (i < remainder ? 1 : 0);
        }
        return shares;
    }
}
