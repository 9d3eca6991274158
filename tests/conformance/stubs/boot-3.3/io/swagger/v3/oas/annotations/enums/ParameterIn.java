package io.swagger.v3.oas.annotations.enums;

public enum ParameterIn { DEFAULT, HEADER, QUERY, PATH, COOKIE }
