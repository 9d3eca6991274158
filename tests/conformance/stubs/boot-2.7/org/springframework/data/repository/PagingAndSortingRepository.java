package org.springframework.data.repository;

/** Spring Data 2.7: extends CrudRepository. */
public interface PagingAndSortingRepository<T, ID> extends CrudRepository<T, ID> {
}
