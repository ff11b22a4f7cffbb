package io.unitas.spring.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a test application's payments endpoint counts, the same on every stack: payments made, requests that entered
 * the method, and a latch a test holds to keep one open (a duplicate in flight).
 */
public class PaymentLedger {
    public final AtomicInteger made = new AtomicInteger();
    public final AtomicReference<CountDownLatch> hold = new AtomicReference<>(new CountDownLatch(0));
    public final AtomicInteger entered = new AtomicInteger();
}
