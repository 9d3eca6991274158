package org.springframework.web.bind;

public class MethodArgumentNotValidException extends Exception {}
