package io.unitas.example.inventory;

import io.unitas.example.CallRecording;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/** The inventory service: {@code POST /inventory/{sku}/reservations} reserves stock, answering with where it ran. */
@SpringBootApplication
@Import(CallRecording.class)
public class InventoryService {

    public static void main(String[] args) {
        SpringApplication.run(InventoryService.class, args);
    }
}
