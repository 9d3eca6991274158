package org.springframework.boot.autoconfigure.web;

public class WebProperties {
    public Resources getResources() { return null; }

    public static class Resources {
        public String[] getStaticLocations() { return null; }
        public void setStaticLocations(String[] staticLocations) {}
        public boolean isAddMappings() { return true; }
        public Chain getChain() { return null; }

        public static class Chain {
            public boolean isEnabled() { return false; }
        }
    }
}
