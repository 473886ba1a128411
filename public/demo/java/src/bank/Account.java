package bank;

import java.util.ArrayList;
import java.util.List;

/** A bank account holding an integer balance in cents and its history. */
public class Account {
    private final String owner;
    private long balanceCents;
    private final long overdraftLimitCents;
    private final List<String> history = new ArrayList<>();

    public Account(String owner, long overdraftLimitCents) {
        this.owner = owner;
        this.overdraftLimitCents = overdraftLimitCents;
    }

    public String owner() {
        return owner;
    }

    public long balance() {
        return balanceCents;
    }

    /** Adds money; refuses zero or negative amounts. */
    public void deposit(long cents, String memo) {
        if (cents <= 0) {
            throw new IllegalArgumentException("deposit must be positive: " + cents);
        }
        balanceCents += cents;
        history.add("+" + Money.format(cents) + " " + memo);
    }

    /**
     * Takes money out if the balance stays above minus the overdraft limit;
     * returns whether it happened (a refused withdrawal is recorded too).
     */
    public boolean withdraw(long cents, String memo) {
        if (cents <= 0) {
            throw new IllegalArgumentException("withdrawal must be positive: " + cents);
        }
        if (balanceCents - cents < -overdraftLimitCents) {
            history.add("refused -" + Money.format(cents) + " " + memo);
            return false;
        }
        balanceCents -= cents;
        history.add("-" + Money.format(cents) + " " + memo);
        return true;
    }

    /** Monthly interest on a positive balance, or a fee on an overdrawn one. */
    public long monthlyAdjustment(double yearlyRatePercent, long overdraftFeeCents) {
        if (balanceCents < 0) {
            balanceCents -= overdraftFeeCents;
            history.add("fee -" + Money.format(overdraftFeeCents));
            return -overdraftFeeCents;
        }
        long interest = Math.round(balanceCents * yearlyRatePercent / 100.0 / 12.0);
        if (interest > 0) {
            balanceCents += interest;
            history.add("interest +" + Money.format(interest));
        }
        return interest;
    }

    /** The last n history lines, newest last. */
    public List<String> recentHistory(int n) {
        int from = Math.max(0, history.size() - n);
        return new ArrayList<>(history.subList(from, history.size()));
    }
}
