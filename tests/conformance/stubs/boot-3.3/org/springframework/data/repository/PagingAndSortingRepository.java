package org.springframework.data.repository;

/** Spring Data 3: no longer extends CrudRepository. */
public interface PagingAndSortingRepository<T, ID> extends Repository<T, ID> {
}
