package dev.skail.search;

/** Where an order came from. */
public enum Canal {

    LOJA, SITE, APLICATIVO
}
