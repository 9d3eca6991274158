package org.springframework.batch.item;

public class Chunk<W> implements Iterable<W> {
    public java.util.List<W> getItems() { return null; }
    public java.util.Iterator<W> iterator() { return null; }
}
