package org.springframework.test.context.junit4;

public final class SpringRunner extends SpringJUnit4ClassRunner {}
