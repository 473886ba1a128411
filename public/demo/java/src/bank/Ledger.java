package bank;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** All accounts of a bank and the operations between them. */
public class Ledger {
    private final Map<String, Account> accounts = new LinkedHashMap<>();

    public Account open(String owner, long overdraftLimitCents) {
        if (accounts.containsKey(owner)) {
            throw new IllegalStateException("account exists: " + owner);
        }
        Account a = new Account(owner, overdraftLimitCents);
        accounts.put(owner, a);
        return a;
    }

    /** Moves money between two accounts, all or nothing. */
    public boolean transfer(String from, String to, long cents) {
        Account source = require(from);
        Account target = require(to);
        if (!source.withdraw(cents, "to " + to)) {
            return false;
        }
        target.deposit(cents, "from " + from);
        return true;
    }

    private Account require(String owner) {
        Account a = accounts.get(owner);
        if (a == null) {
            throw new IllegalArgumentException("no account for " + owner);
        }
        return a;
    }

    /** Sum of all balances (overdrawn accounts count negative). */
    public long totalDeposits() {
        long sum = 0;
        for (Account a : accounts.values()) {
            sum += a.balance();
        }
        return sum;
    }

    /** Owners whose balance is below zero, most overdrawn first. */
    public List<String> overdrawn() {
        List<Account> list = new ArrayList<>();
        for (Account a : accounts.values()) {
            if (a.balance() < 0) {
                list.add(a);
            }
        }
        list.sort(Comparator.comparingLong(Account::balance));
        List<String> owners = new ArrayList<>();
        for (Account a : list) {
            owners.add(a.owner());
        }
        return owners;
    }

    /** Applies the monthly interest or fee to every account; returns the net. */
    public long closeMonth(double yearlyRatePercent, long overdraftFeeCents) {
        long net = 0;
        for (Account a : accounts.values()) {
            net += a.monthlyAdjustment(yearlyRatePercent, overdraftFeeCents);
        }
        return net;
    }

    /** One line per account, owners aligned, amounts right aligned. */
    public String statement() {
        int width = 0;
        for (String owner : accounts.keySet()) {
            width = Math.max(width, owner.length());
        }
        StringBuilder out = new StringBuilder();
        for (Account a : accounts.values()) {
            String amount = Money.format(a.balance());
            out.append(String.format("%-" + width + "s %14s%n", a.owner(), amount));
        }
        out.append(String.format("%-" + width + "s %14s%n", "TOTAL", Money.format(totalDeposits())));
        return out.toString();
    }

    public static void main(String[] args) {
        Ledger bank = new Ledger();
        bank.open("alice", 0).deposit(Money.parse("1,200.00"), "salary");
        bank.open("bob", 50_00).deposit(Money.parse("30"), "gift");
        bank.transfer("bob", "alice", Money.parse("75.5"));
        bank.closeMonth(2.5, 15_00);
        System.out.print(bank.statement());
        System.out.println("overdrawn: " + bank.overdrawn());
    }
}
