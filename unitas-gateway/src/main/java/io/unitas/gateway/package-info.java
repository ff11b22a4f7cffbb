package io.unitas.gateway;
